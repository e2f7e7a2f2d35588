file(REMOVE_RECURSE
  "CMakeFiles/idgen_core.dir/src/core/entropy.cpp.o"
  "CMakeFiles/idgen_core.dir/src/core/entropy.cpp.o.d"
  "CMakeFiles/idgen_core.dir/src/core/ulid.cpp.o"
  "CMakeFiles/idgen_core.dir/src/core/ulid.cpp.o.d"
  "libidgen_core.a"
  "libidgen_core.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/idgen_core.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
