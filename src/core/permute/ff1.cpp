#include "core/permute/ff1.h"

#include <cstring>

#include "core/permute/ff1_walk.h"
#include "core/base/no_pg_check.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "ff1.cpp assumes a little-endian machine");

namespace idgen::ff1 {
namespace {

using u128 = unsigned __int128;

// The parameters FF1 derives from radix and n (SP 800-38G, Algorithm 7, steps 1 to 4).
struct Shape {
    unsigned u, v, b, d;
    u128 pow_u, pow_v;  // radix^u, radix^v (both <= 2^64)
};

// radix^k, or 0 when it exceeds 2^64.
u128 power(unsigned radix, unsigned k) noexcept {
    u128 r = 1;
    for (unsigned i = 0; i < k; ++i) {
        r *= radix;
        if (r > (static_cast<u128>(1) << 64)) return 0;
    }
    return r;
}

unsigned bit_length(u128 x) noexcept {
    unsigned n = 0;
    while (x != 0) {
        ++n;
        x >>= 1;
    }
    return n;
}

Error shape_of(unsigned radix, std::size_t n, std::size_t tweak_len, Shape* s) noexcept {
    if (radix < 2 || radix > 65536 || n < 2 || n > kMaxDigits || tweak_len > kMaxTweak) return Error::kOutOfRange;
    s->u = static_cast<unsigned>(n / 2);
    s->v = static_cast<unsigned>(n) - s->u;
    s->pow_u = power(radix, s->u);
    s->pow_v = power(radix, s->v);
    if (s->pow_u == 0 || s->pow_v == 0) return Error::kOutOfRange;
    // radix^n = radix^u * radix^v >= 10^6. The product is formed only when both factors are below
    // 10^6, so it cannot overflow.
    const bool big_enough = s->pow_u >= kMinDomain || s->pow_v >= kMinDomain || s->pow_u * s->pow_v >= kMinDomain;
    if (!big_enough) return Error::kOutOfRange;
    // b = ceil(ceil(v * log2(radix)) / 8); ceil(log2(M)) is the bit length of M - 1.
    s->b = (bit_length(s->pow_v - 1) + 7) / 8;
    s->d = 4 * ((s->b + 3) / 4) + 4;
    return Error::kOk;
}

// The block P (Algorithm 7, step 5).
void make_p(unsigned radix, unsigned u, std::size_t n, std::size_t t, std::uint8_t p[16]) noexcept {
    p[0] = 1;
    p[1] = 2;
    p[2] = 1;
    p[3] = static_cast<std::uint8_t>(radix >> 16);
    p[4] = static_cast<std::uint8_t>(radix >> 8);
    p[5] = static_cast<std::uint8_t>(radix);
    p[6] = 10;
    p[7] = static_cast<std::uint8_t>(u % 256);
    for (int i = 0; i < 4; ++i) {
        p[8 + i] = static_cast<std::uint8_t>(n >> (24 - 8 * i));
        p[12 + i] = static_cast<std::uint8_t>(t >> (24 - 8 * i));
    }
}

void xor_block(std::uint8_t* a, const std::uint8_t* b) noexcept {
    for (int i = 0; i < 16; ++i) a[i] ^= b[i];
}

// R = PRF(P || Q) with Q = T || 0^pad || [i] || [num]^b (Algorithm 7, steps 6.i and 6.ii), the
// CBC-MAC written out block by block.
void prf(const BlockCipher& aes, const std::uint8_t p[16], const std::uint8_t* tweak, std::size_t t, unsigned b,
         unsigned round, std::uint64_t num, std::uint8_t r[16]) noexcept {
    std::uint8_t q[kMaxTweak + 32];
    const std::size_t pad = (16 - (t + b + 1) % 16) % 16;
    const std::size_t len = t + pad + 1 + b;
    if (t) std::memcpy(q, tweak, t);
    std::memset(q + t, 0, pad);
    q[t + pad] = static_cast<std::uint8_t>(round);
    for (unsigned j = 0; j < b; ++j) q[t + pad + 1 + j] = static_cast<std::uint8_t>(num >> (8 * (b - 1 - j)));
    std::uint8_t state[16];
    aes(p, state);
    for (std::size_t off = 0; off < len; off += 16) {
        xor_block(state, q + off);
        std::uint8_t next[16];
        aes(state, next);
        std::memcpy(state, next, 16);
    }
    std::memcpy(r, state, 16);
}

// NUM(S) of the first d bytes (d <= 12 here: b <= 8).
u128 num_bytes(const std::uint8_t* s, unsigned d) noexcept {
    u128 y = 0;
    for (unsigned i = 0; i < d; ++i) y = (y << 8) | s[i];
    return y;
}

std::uint64_t num_radix(const std::uint16_t* x, unsigned len, unsigned radix) noexcept {
    u128 r = 0;
    for (unsigned i = 0; i < len; ++i) r = r * radix + x[i];
    return static_cast<std::uint64_t>(r);
}

void str_radix(u128 c, unsigned len, unsigned radix, std::uint16_t* out) noexcept {
    for (unsigned i = len; i-- > 0;) {
        out[i] = static_cast<std::uint16_t>(c % radix);
        c /= radix;
    }
}

Error crypt(bool forward, const BlockCipher& aes, const std::uint8_t* tweak, std::size_t t, unsigned radix,
            const std::uint16_t* in, std::size_t n, std::uint16_t* out) noexcept {
    Shape s;
    if (Error e = shape_of(radix, n, t, &s); e != Error::kOk) return e;
    for (std::size_t i = 0; i < n; ++i)
        if (in[i] >= radix) return Error::kInvalidSyntax;
    std::uint8_t p[16];
    make_p(radix, s.u, n, t, p);
    // A holds u numerals and B v at the start and at the end; in between they alternate.
    std::uint16_t a[kMaxDigits], bb[kMaxDigits];
    unsigned la = s.u, lb = s.v;
    std::memcpy(a, in, la * sizeof(std::uint16_t));
    std::memcpy(bb, in + la, lb * sizeof(std::uint16_t));
    for (int k = 0; k < 10; ++k) {
        const unsigned i = forward ? static_cast<unsigned>(k) : static_cast<unsigned>(9 - k);
        const unsigned m = (i % 2 == 0) ? s.u : s.v;
        const u128 modulus = (i % 2 == 0) ? s.pow_u : s.pow_v;
        std::uint8_t r[16];
        if (forward) {
            prf(aes, p, tweak, t, s.b, i, num_radix(bb, lb, radix), r);
            const u128 y = num_bytes(r, s.d) % modulus;
            const u128 c = (num_radix(a, la, radix) + y) % modulus;
            std::memcpy(a, bb, lb * sizeof(std::uint16_t));
            la = lb;
            str_radix(c, m, radix, bb);
            lb = m;
        } else {
            prf(aes, p, tweak, t, s.b, i, num_radix(a, la, radix), r);
            const u128 y = num_bytes(r, s.d) % modulus;
            const u128 c = (num_radix(bb, lb, radix) + modulus - y) % modulus;
            std::memcpy(bb, a, la * sizeof(std::uint16_t));
            lb = la;
            str_radix(c, m, radix, a);
            la = m;
        }
    }
    std::memcpy(out, a, la * sizeof(std::uint16_t));
    std::memcpy(out + la, bb, lb * sizeof(std::uint16_t));
    return Error::kOk;
}

inline std::uint64_t mask(unsigned bits) noexcept {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

inline std::uint64_t load_be64(const std::uint8_t* p) noexcept {
    std::uint64_t x;
    std::memcpy(&x, p, 8);
    return __builtin_bswap64(x);  // x86-64 and arm64 Linux are little-endian
}
inline void store_be64(std::uint8_t* p, std::uint64_t x) noexcept {
    x = __builtin_bswap64(x);
    std::memcpy(p, &x, 8);
}

// y of round i for the half `half`: one AES block from the precomputed state. Q's last block ends
// with [i] and the b <= 4 bytes of the half, all in its second 8 bytes.
inline std::uint64_t round_y(const BlockCipher& aes, const BinaryPlan& plan, unsigned i, std::uint64_t half) noexcept {
    std::uint8_t blk[16], r[16];
    std::memcpy(blk, plan.h, 8);
    store_be64(blk + 8, load_be64(plan.h + 8) ^ (static_cast<std::uint64_t>(i) << (8 * plan.b)) ^ half);
    aes(blk, r);
    return load_be64(r);  // d = 8 for every n in [20, 64]: y is the first 8 bytes of R
}

}  // namespace

Error encrypt(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len, unsigned radix,
              const std::uint16_t* in, std::size_t n, std::uint16_t* out) noexcept {
    return crypt(true, aes, tweak, tweak_len, radix, in, n, out);
}

Error decrypt(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len, unsigned radix,
              const std::uint16_t* in, std::size_t n, std::uint16_t* out) noexcept {
    return crypt(false, aes, tweak, tweak_len, radix, in, n, out);
}

Error make_binary_plan(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t t, unsigned n,
                       BinaryPlan* plan) noexcept {
    if (n < 20 || n > 64 || t > kMaxTweak) return Error::kOutOfRange;
    const unsigned u = n / 2, v = n - u, b = (v + 7) / 8;
    std::uint8_t p[16];
    make_p(2, u, n, t, p);
    // Q's bytes before the round number: the tweak, then zeros up to 15 - b bytes into a block.
    const std::size_t pad = (16 - (t + b + 1) % 16) % 16;
    const std::size_t len = t + pad + 1 + b;
    std::uint8_t q[kMaxTweak + 32];
    if (t) std::memcpy(q, tweak, t);
    std::memset(q + t, 0, len - t);  // padding, round number and B are zero here
    std::uint8_t state[16];
    aes(p, state);
    for (std::size_t off = 0; off + 16 < len; off += 16) {
        xor_block(state, q + off);
        std::uint8_t next[16];
        aes(state, next);
        std::memcpy(state, next, 16);
    }
    xor_block(state, q + len - 16);
    std::memcpy(plan->h, state, 16);
    plan->n = static_cast<std::uint8_t>(n);
    plan->u = static_cast<std::uint8_t>(u);
    plan->v = static_cast<std::uint8_t>(v);
    plan->b = static_cast<std::uint8_t>(b);
    return Error::kOk;
}

std::uint64_t binary_encrypt(const BlockCipher& aes, const BinaryPlan& plan, std::uint64_t x) noexcept {
    const unsigned u = plan.u, v = plan.v;
    std::uint64_t a = x >> v, b = x & mask(v);
    for (unsigned i = 0; i < 10; ++i) {
        const unsigned m = (i % 2 == 0) ? u : v;
        const std::uint64_t c = (a + round_y(aes, plan, i, b)) & mask(m);
        a = b;
        b = c;
    }
    return (a << v) | b;
}

std::uint64_t binary_decrypt(const BlockCipher& aes, const BinaryPlan& plan, std::uint64_t x) noexcept {
    const unsigned u = plan.u, v = plan.v;
    std::uint64_t a = x >> v, b = x & mask(v);
    for (unsigned i = 10; i-- > 0;) {
        const unsigned m = (i % 2 == 0) ? u : v;
        const std::uint64_t c = (b - round_y(aes, plan, i, a)) & mask(m);
        b = a;
        a = c;
    }
    return (a << v) | b;
}

unsigned domain_bits(std::uint64_t domain) noexcept { return bit_length(domain - 1); }

Error make_domain_plan(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len, std::uint64_t domain,
                       DomainPlan* plan) noexcept {
    if (domain < kMinDomain) return Error::kOutOfRange;
    if (Error e = make_binary_plan(aes, tweak, tweak_len, domain_bits(domain), &plan->ff1); e != Error::kOk) return e;
    plan->domain = domain;
    return Error::kOk;
}

Result<std::uint64_t> permute(const BlockCipher& aes, const DomainPlan& plan, std::uint64_t x) noexcept {
    return walk::run(plan, x, [&](std::uint64_t z) { return binary_encrypt(aes, plan.ff1, z); });
}

Result<std::uint64_t> unpermute(const BlockCipher& aes, const DomainPlan& plan, std::uint64_t x) noexcept {
    return walk::run(plan, x, [&](std::uint64_t z) { return binary_decrypt(aes, plan.ff1, z); });
}

}  // namespace idgen::ff1
