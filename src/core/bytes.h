// id_gen core: big-endian loads and stores (IDs are stored big-endian so byte order = order).
#pragma once

#include <cstdint>
#include <cstring>

namespace idgen {

// memcpy + byte swap compiles to one load (or store) and a bswap/movbe; GCC does not recognise the
// shift-or byte loop as such, and ID encoding and decoding call these on every value.
inline std::uint64_t load_be64(const std::uint8_t* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

inline std::uint16_t load_be16(const std::uint8_t* p) noexcept {
    return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

inline void store_be64(std::uint8_t* p, std::uint64_t v) noexcept {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    std::memcpy(p, &v, sizeof v);
}

}  // namespace idgen
