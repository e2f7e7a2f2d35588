# Empty dependencies file for fuzz_ulid.
# This may be replaced when dependencies are built.
