#include "core/base/chacha20.h"

#include <cstring>

#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

inline std::uint32_t load_le32(const std::uint8_t* p) noexcept {
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

inline void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
    p[0] = static_cast<std::uint8_t>(v);
    p[1] = static_cast<std::uint8_t>(v >> 8);
    p[2] = static_cast<std::uint8_t>(v >> 16);
    p[3] = static_cast<std::uint8_t>(v >> 24);
}

// The state of RFC 8439 §2.3 before the rounds: constants, key, counter, nonce.
void initial_state(std::uint32_t (&s)[16], const std::uint8_t* key, std::uint32_t counter,
                   const std::uint8_t* nonce) noexcept {
    s[0] = 0x61707865;
    s[1] = 0x3320646e;
    s[2] = 0x79622d32;
    s[3] = 0x6b206574;
    for (int i = 0; i < 8; ++i) s[4 + i] = load_le32(key + 4 * i);
    s[12] = counter;
    for (int i = 0; i < 3; ++i) s[13 + i] = load_le32(nonce + 4 * i);
}

// The ten double rounds (column rounds, then diagonal rounds) of RFC 8439 §2.3 over any word
// type: a uint32_t (one block) or a vector of them (one block per lane).
#define IDGEN_INLINE inline __attribute__((always_inline))

template <class W>
IDGEN_INLINE void rotl(W& v, int n) noexcept {  // in place: no vector passed by value (ABI warnings)
    v = (v << n) | (v >> (32 - n));
}

template <class W>
IDGEN_INLINE void quarter(W& a, W& b, W& c, W& d) noexcept {
    a += b;
    d ^= a;
    rotl(d, 16);
    c += d;
    b ^= c;
    rotl(b, 12);
    a += b;
    d ^= a;
    rotl(d, 8);
    c += d;
    b ^= c;
    rotl(b, 7);
}

template <class W>
IDGEN_INLINE void rounds(W (&x)[16]) noexcept {
    for (int i = 0; i < 10; ++i) {
        quarter(x[0], x[4], x[8], x[12]);
        quarter(x[1], x[5], x[9], x[13]);
        quarter(x[2], x[6], x[10], x[14]);
        quarter(x[3], x[7], x[11], x[15]);
        quarter(x[0], x[5], x[10], x[15]);
        quarter(x[1], x[6], x[11], x[12]);
        quarter(x[2], x[7], x[8], x[13]);
        quarter(x[3], x[4], x[9], x[14]);
    }
}

void one_block(const std::uint32_t (&s)[16], std::uint8_t* out) noexcept {
    std::uint32_t x[16];
    std::memcpy(x, s, sizeof x);
    rounds(x);
    for (int i = 0; i < 16; ++i) store_le32(out + 4 * i, x[i] + s[i]);
}

// Blocks s[12] .. s[12] + L - 1 at once: word i of every block in one vector of L lanes.
template <int L>
struct Lanes {
    typedef std::uint32_t Vec __attribute__((vector_size(4 * L)));
};

template <int L>
IDGEN_INLINE void lane_blocks(const std::uint32_t (&s)[16], std::uint8_t* out) noexcept {
    using Vec = typename Lanes<L>::Vec;
    Vec in[16], x[16];
    for (int i = 0; i < 16; ++i) in[i] = Vec{} + s[i];
    for (int j = 0; j < L; ++j) in[12][j] = s[12] + static_cast<std::uint32_t>(j);
    for (int i = 0; i < 16; ++i) x[i] = in[i];
    rounds(x);
    for (int i = 0; i < 16; ++i) x[i] += in[i];
    for (int j = 0; j < L; ++j)
        for (int i = 0; i < 16; ++i) store_le32(out + kChaCha20BlockLen * j + 4 * i, x[i][j]);
}

// The widest path the CPU has: eight lanes with AVX2, four with SSE2 (the x86-64 baseline) or the
// target's native vectors elsewhere.
template <int L>
IDGEN_INLINE std::size_t run_lanes(std::uint32_t (&s)[16], std::uint8_t*& out, std::size_t nblocks) noexcept {
    for (; nblocks >= L; nblocks -= L, out += L * kChaCha20BlockLen) {
        lane_blocks<L>(s, out);
        s[12] += L;
    }
    return nblocks;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) std::size_t run_lanes8_avx2(std::uint32_t (&s)[16], std::uint8_t*& out,
                                                            std::size_t nblocks) noexcept {
    return run_lanes<8>(s, out, nblocks);
}
bool cpu_has_avx2() noexcept {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}
#else
std::size_t run_lanes8_avx2(std::uint32_t (&s)[16], std::uint8_t*& out, std::size_t nblocks) noexcept {
    return run_lanes<8>(s, out, nblocks);
}
bool cpu_has_avx2() noexcept { return false; }
#endif

}  // namespace

bool chacha20_has_path(ChaCha20Path path) noexcept { return path != ChaCha20Path::kLanes8 || cpu_has_avx2(); }

void chacha20_blocks(const std::uint8_t* key, std::uint32_t counter, const std::uint8_t* nonce, std::uint8_t* out,
                     std::size_t nblocks, ChaCha20Path path) noexcept {
    std::uint32_t s[16];
    initial_state(s, key, counter, nonce);
    if (path == ChaCha20Path::kBest) path = cpu_has_avx2() ? ChaCha20Path::kLanes8 : ChaCha20Path::kLanes4;
    if (path == ChaCha20Path::kLanes8 && cpu_has_avx2())
        nblocks = run_lanes8_avx2(s, out, nblocks);
    else if (path != ChaCha20Path::kOneBlock)
        nblocks = run_lanes<4>(s, out, nblocks);
    for (; nblocks > 0; --nblocks, out += kChaCha20BlockLen) {
        one_block(s, out);
        ++s[12];
    }
    // The key's words do not outlive the call.
    volatile std::uint32_t* wipe = s;
    for (int i = 0; i < 16; ++i) wipe[i] = 0;
}

}  // namespace idgen
