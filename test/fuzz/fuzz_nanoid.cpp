// libFuzzer target: NanoID alphabet checking and generation.
// Invariants: never crash; an alphabet is accepted exactly when it has 2 to 255 bytes, no zero
// byte, no repeated byte (and no byte >= 0x80 where those are parts of multibyte characters); an
// accepted alphabet's IDs have the asked size and only its characters, whatever the random bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/base/entropy.h"
#include "core/types/nanoid.h"

namespace {

class InputBytes final : public idgen::ByteSource {
public:
    InputBytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
    bool fill(std::uint8_t* out, std::size_t n) noexcept override {
        for (std::size_t i = 0; i < n; ++i) out[i] = pos_ < n_ ? d_[pos_++] : 0;
        return true;
    }

private:
    const std::uint8_t* d_;
    std::size_t n_;
    std::size_t pos_ = 0;
};

void check(bool ok) {
    if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const bool high = data[0] & 1;
    const std::size_t id_size = data[1];
    const std::size_t alen = data[2] <= size - 3 ? data[2] : size - 3;
    const char* a = reinterpret_cast<const char*>(data + 3);

    bool expect = alen >= 2 && alen <= 255;
    bool seen[256] = {};
    for (std::size_t i = 0; i < alen; ++i) {
        const auto c = static_cast<std::uint8_t>(a[i]);
        if (c == 0 || seen[c] || (c >= 0x80 && !high)) expect = false;
        seen[c] = true;
    }
    idgen::NanoidAlphabet alphabet;
    const auto r = idgen::nanoid_alphabet(a, alen, high, alphabet);
    check((r == idgen::NanoidAlphabetCheck::kValid) == expect);
    if (!expect) return 0;
    check(alphabet.size == alen && alphabet.mask >= alen - 1 && alphabet.mask / 2 < alen - 1);

    InputBytes random(data + 3 + alen, size - 3 - alen);
    char out[256];
    std::memset(out, 0, sizeof out);
    const idgen::Error e = idgen::nanoid_generate(alphabet, id_size, random, out);
    check((e == idgen::Error::kOk) == (id_size >= 1 && id_size <= 255));
    if (e != idgen::Error::kOk) return 0;
    for (std::size_t i = 0; i < id_size; ++i) check(seen[static_cast<std::uint8_t>(out[i])]);
    check(out[id_size] == 0);
    return 0;
}
