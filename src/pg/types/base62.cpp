// id_gen: SQL entry points of base62 text (types base62_64 and base62_128, encode/decode
// functions). The glue is radix_text.h's, shared with base36; this file names the codec.
#include "core/text/base62.h"
#include "pg/types/radix_text.h"

namespace {

struct Base62 {
    static constexpr const char* kType64 = "base62_64";
    static constexpr const char* kType128 = "base62_128";
    static constexpr std::size_t kLen64 = idgen::kBase62Len64, kLen128 = idgen::kBase62Len128;
    static void encode64(std::uint64_t v, char* out) noexcept { idgen::base62_encode64(v, out); }
    static void encode128(unsigned __int128 v, char* out) noexcept { idgen::base62_encode128(v, out); }
    static idgen::Result<std::uint64_t> decode64(const char* s, std::size_t n) noexcept {
        return idgen::base62_decode64(s, n);
    }
    static idgen::Result<unsigned __int128> decode128(const char* s, std::size_t n) noexcept {
        return idgen::base62_decode128(s, n);
    }
};

}  // namespace

// base62_64: an int8 in 0 .. 2^63-1; base62_128: 16 big-endian bytes (a uuid's, a ulid's).
IDGEN_RADIX_TEXT_FUNCTIONS(base62, Base62)
