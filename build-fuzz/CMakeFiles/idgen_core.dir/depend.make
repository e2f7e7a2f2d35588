# Empty dependencies file for idgen_core.
# This may be replaced when dependencies are built.
