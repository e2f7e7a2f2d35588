// The TypeID specification's own test data, version 0.3.0 of the spec (last updated 2024-04-10):
// spec/valid.yml and spec/invalid.yml of https://github.com/jetify-com/typeid (Apache License
// 2.0), copied here as C++ tables: every valid example's name, TypeID, prefix and UUID, and every
// invalid example's name and TypeID.
#pragma once

namespace typeid_spec {

struct Valid {
    const char* name;
    const char* typeid_text;
    const char* prefix;
    const char* uuid;
};

struct Invalid {
    const char* name;
    const char* typeid_text;
};

inline constexpr Valid kValid[] = {
    {"nil", "00000000000000000000000000", "", "00000000-0000-0000-0000-000000000000"},
    {"one", "00000000000000000000000001", "", "00000000-0000-0000-0000-000000000001"},
    {"ten", "0000000000000000000000000a", "", "00000000-0000-0000-0000-00000000000a"},
    {"sixteen", "0000000000000000000000000g", "", "00000000-0000-0000-0000-000000000010"},
    {"thirty-two", "00000000000000000000000010", "", "00000000-0000-0000-0000-000000000020"},
    {"max-valid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
    {"valid-alphabet", "prefix_0123456789abcdefghjkmnpqrs", "prefix", "0110c853-1d09-52d8-d73e-1194e95b5f19"},
    {"valid-uuidv7", "prefix_01h455vb4pex5vsknk084sn02q", "prefix", "01890a5d-ac96-774b-bcce-b302099a8057"},
    {"prefix-underscore", "pre_fix_00000000000000000000000000", "pre_fix", "00000000-0000-0000-0000-000000000000"},
};

inline constexpr Invalid kInvalid[] = {
    {"prefix-uppercase", "PREFIX_00000000000000000000000000"},
    {"prefix-numeric", "12345_00000000000000000000000000"},
    {"prefix-period", "pre.fix_00000000000000000000000000"},
    {"prefix-non-ascii",
     "pr\xc3\xa9"
     "fix_00000000000000000000000000"},
    {"prefix-spaces", "  prefix_00000000000000000000000000"},
    {"prefix-64-chars", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000"},
    {"separator-empty-prefix", "_00000000000000000000000000"},
    {"separator-empty", "_"},
    {"suffix-short", "prefix_1234567890123456789012345"},
    {"suffix-long", "prefix_123456789012345678901234567"},
    {"suffix-spaces", "prefix_1234567890123456789012345 "},
    {"suffix-uppercase", "prefix_0123456789ABCDEFGHJKMNPQRS"},
    {"suffix-hyphens", "prefix_123456789-123456789-123456"},
    {"suffix-wrong-alphabet", "prefix_ooooooiiiiiiuuuuuuulllllll"},
    {"suffix-ambiguous-crockford", "prefix_i23456789ol23456789oi23456"},
    {"suffix-hyphens-crockford", "prefix_123456789-0123456789-0123456"},
    {"suffix-overflow", "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz"},
    {"prefix-underscore-start", "_prefix_00000000000000000000000000"},
    {"prefix-underscore-end", "prefix__00000000000000000000000000"},
};

}  // namespace typeid_spec
