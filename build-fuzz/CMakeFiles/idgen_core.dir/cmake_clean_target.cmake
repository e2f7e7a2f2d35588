file(REMOVE_RECURSE
  "libidgen_core.a"
)
