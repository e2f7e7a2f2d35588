// libFuzzer target: UUIDv6 conversions and the v1/v6/v7 timestamp reader over any 16 bytes.
// Invariants: never crash; a conversion succeeds exactly for an RFC 9562 UUID of its version;
// v1 -> v6 -> v1 and v6 -> v1 -> v6 give back the input; bytes 8-15 never change; the time read
// from the converted UUID is the input's; the reader agrees with PostgreSQL 18's (uuid_time) on
// everything but version 6; a generator driven by the input's bytes strictly increases.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/base/entropy.h"
#include "core/types/uuidv6.h"

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
    if (size < 16) return 0;
    idgen::Uuid u{};
    std::memcpy(u.bytes, data, 16);
    const bool rfc = (u.bytes[8] & 0xC0) == 0x80;
    const int version = u.bytes[6] >> 4;

    const auto to6 = idgen::uuid_v1_to_v6(u);
    check(to6.ok == (rfc && version == 1));
    if (to6.ok) {
        check(idgen::uuid_version(to6.id) == 6);
        check(std::memcmp(to6.id.bytes + 8, u.bytes + 8, 8) == 0);
        const auto back = idgen::uuid_v6_to_v1(to6.id);
        check(back.ok && std::memcmp(back.id.bytes, u.bytes, 16) == 0);
        check(idgen::uuid_time_v167(to6.id).unix_us == idgen::uuid_time_v167(u).unix_us);
    }
    const auto to1 = idgen::uuid_v6_to_v1(u);
    check(to1.ok == (rfc && version == 6));
    if (to1.ok) {
        check(idgen::uuid_version(to1.id) == 1);
        const auto back = idgen::uuid_v1_to_v6(to1.id);
        check(back.ok && std::memcmp(back.id.bytes, u.bytes, 16) == 0);
        check(idgen::uuid_time_v167(to1.id).unix_us == idgen::uuid_time_v167(u).unix_us);
    }
    const auto t = idgen::uuid_time_v167(u);
    check(t.present == (rfc && (version == 1 || version == 6 || version == 7)));
    if (!(rfc && version == 6)) {
        const auto core18 = idgen::uuid_time(u);
        check(core18.present == t.present && (!t.present || core18.unix_us == t.unix_us));
    }

    // A generator with clock readings taken from the input (any int64) and its bytes as randomness.
    InputBytes random(data + 16, size - 16);
    idgen::Uuidv6Generator g;
    idgen::Uuid prev{};
    for (std::size_t i = 16; i + 8 <= size && i < 16 + 8 * 16; i += 8) {
        std::int64_t ns;
        std::memcpy(&ns, data + i, 8);
        auto id = g.next(ns, random);
        check(id.ok());
        check(idgen::uuid_version(*id) == 6 && (id->bytes[10] & 1) == 1);
        if (i > 16) check(std::memcmp(prev.bytes, id->bytes, 16) < 0);
        prev = *id;
    }
    return 0;
}
