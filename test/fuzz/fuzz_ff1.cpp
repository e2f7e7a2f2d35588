// libFuzzer target: FF1 and the [1, N] permutation. The input picks a key, a radix, a numeral
// string, a tweak, a domain and a value.
// Invariants: never crash; the general algorithm accepts exactly the supported shapes (radix
// 2..65536, numerals below the radix, radix^n >= 10^6, halves within 64 bits) and decrypt inverts
// encrypt; a domain below 10^6 is refused; for a domain >= 10^6, a value in [1, N] maps into [1, N]
// and back, and 0 or a value above N is refused. Where the CPU has AES-NI, its path (one value,
// and a run of consecutive values) gives OpenSSL's results.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/permute/aes_evp.h"
#include "core/permute/aes_ni.h"
#include "core/permute/ff1.h"

namespace {

struct Reader {
    const std::uint8_t* p;
    std::size_t n;
    std::uint64_t take(std::size_t bytes) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < bytes; ++i) {
            v = (v << 8) | (n ? *p : 0);
            if (n) ++p, --n;
        }
        return v;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Reader r{data, size};
    std::uint8_t key[16];
    for (auto& k : key) k = static_cast<std::uint8_t>(r.take(1));
    EVP_CIPHER_CTX* ctx = idgen::aes::context_new(key, sizeof key);
    if (ctx == nullptr) __builtin_trap();
    const auto aes = idgen::aes::block_cipher(ctx);

    // The general algorithm on numeral strings.
    const unsigned radix = static_cast<unsigned>(r.take(2)) + 1;  // 1..65536
    const std::size_t n = r.take(1) % 70;
    const std::size_t tlen = r.take(1) % 40;
    std::uint8_t tweak[40];
    for (std::size_t i = 0; i < tlen; ++i) tweak[i] = static_cast<std::uint8_t>(r.take(1));
    std::uint16_t in[70], out[70], back[70];
    bool numerals_ok = true;
    for (std::size_t i = 0; i < n; ++i) {
        in[i] = static_cast<std::uint16_t>(r.take(2) % (radix + 1));  // sometimes one too large
        if (in[i] >= radix) numerals_ok = false;
    }
    const idgen::Error e = idgen::ff1::encrypt(aes, tweak, tlen, radix, in, n, out);
    if (e == idgen::Error::kOk) {
        if (!numerals_ok || radix < 2) __builtin_trap();
        for (std::size_t i = 0; i < n; ++i)
            if (out[i] >= radix) __builtin_trap();
        if (idgen::ff1::decrypt(aes, tweak, tlen, radix, out, n, back) != idgen::Error::kOk) __builtin_trap();
        if (std::memcmp(in, back, n * sizeof in[0]) != 0) __builtin_trap();
    } else if (e == idgen::Error::kInvalidSyntax && numerals_ok) {
        __builtin_trap();
    }

    // The domain permutation.
    const std::uint64_t domain = r.take(8) >> (r.take(1) % 64);
    // 0..domain+1 (any value when domain + 2 wraps around 2^64)
    const std::uint64_t span = domain + 2;
    const std::uint64_t x = span == 0 ? r.take(8) : r.take(8) % span;
    idgen::ff1::DomainPlan plan;
    const idgen::Error pe = idgen::ff1::make_domain_plan(aes, tweak, tlen, domain, &plan);
    if ((pe == idgen::Error::kOk) != (domain >= idgen::ff1::kMinDomain)) __builtin_trap();
    if (pe == idgen::Error::kOk) {
        auto y = idgen::ff1::permute(aes, plan, x);
        const bool in_domain = x >= 1 && x <= domain;
        if (y.ok() != in_domain) __builtin_trap();
        if (y.ok()) {
            if (*y < 1 || *y > domain) __builtin_trap();
            auto b = idgen::ff1::unpermute(aes, plan, *y);
            if (!b.ok() || *b != x) __builtin_trap();
        } else if (idgen::ff1::unpermute(aes, plan, x).ok()) {
            __builtin_trap();
        }
        idgen::aes_ni::Key ni;
        if (idgen::aes_ni::expand_key(key, sizeof key, &ni)) {
            const auto z = idgen::aes_ni::permute(ni, plan, x);
            if (z.ok() != y.ok() || (z.ok() && *z != *y)) __builtin_trap();
            const auto u = idgen::aes_ni::unpermute(ni, plan, x);
            const auto v = idgen::ff1::unpermute(aes, plan, x);
            if (u.ok() != v.ok() || (u.ok() && *u != *v)) __builtin_trap();
            if (in_domain) {
                const std::uint64_t left = domain - x + 1;
                const unsigned n = left < idgen::aes_ni::kRun ? static_cast<unsigned>(left) : idgen::aes_ni::kRun;
                std::uint64_t run[idgen::aes_ni::kRun];
                if (idgen::aes_ni::permute_consecutive(ni, plan, x, n, true, run) != idgen::Error::kOk)
                    __builtin_trap();
                for (unsigned j = 0; j < n; ++j)
                    if (run[j] != *idgen::ff1::permute(aes, plan, x + j)) __builtin_trap();
            }
        }
    }
    idgen::aes::context_free(ctx);
    return 0;
}
