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

// 128-bit big-endian load/store: a 16-byte ID as one unsigned number (byte order = numeric order).
inline unsigned __int128 load_be128(const std::uint8_t* p) noexcept {
    return (static_cast<unsigned __int128>(load_be64(p)) << 64) | load_be64(p + 8);
}

inline void store_be128(std::uint8_t* p, unsigned __int128 v) noexcept {
    store_be64(p, static_cast<std::uint64_t>(v >> 64));
    store_be64(p + 8, static_cast<std::uint64_t>(v));
}

}  // namespace idgen
