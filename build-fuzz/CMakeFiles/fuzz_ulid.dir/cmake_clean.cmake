file(REMOVE_RECURSE
  "CMakeFiles/fuzz_ulid.dir/test/fuzz/fuzz_ulid.cpp.o"
  "CMakeFiles/fuzz_ulid.dir/test/fuzz/fuzz_ulid.cpp.o.d"
  "fuzz_ulid"
  "fuzz_ulid.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/fuzz_ulid.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
