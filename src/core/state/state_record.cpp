#include "core/state/state_record.h"

#include <cstring>

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr std::uint8_t kMagic[8] = {'i', 'd', 'g', 'e', 'n', 'S', 'T', '2'};
constexpr std::size_t kCrcAt = kStateRecordSize - 4;

struct CrcTable {
    std::uint32_t t[256];
    constexpr CrcTable() : t() {
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            t[i] = c;
        }
    }
};
constexpr CrcTable kCrc{};

void put32(std::uint8_t* p, std::uint32_t v) noexcept {
    p[0] = static_cast<std::uint8_t>(v >> 24);
    p[1] = static_cast<std::uint8_t>(v >> 16);
    p[2] = static_cast<std::uint8_t>(v >> 8);
    p[3] = static_cast<std::uint8_t>(v);
}
std::uint32_t get32(const std::uint8_t* p) noexcept {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
void put64(std::uint8_t* p, std::int64_t v) noexcept { store_be64(p, static_cast<std::uint64_t>(v)); }
std::int64_t get64(const std::uint8_t* p) noexcept { return static_cast<std::int64_t>(load_be64(p)); }

}  // namespace

std::uint32_t crc32c(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) c = kCrc.t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void state_record_encode(const StateRecord& r, std::uint8_t out[kStateRecordSize]) noexcept {
    std::memcpy(out, kMagic, 8);
    put32(out + 8, kStateFormatVersion);
    put32(out + 12, r.flags);
    put64(out + 16, r.boot);
    put64(out + 24, r.epoch_ms);
    put64(out + 32, r.last_time);
    put64(out + 40, r.last_seq);
    put64(out + 48, r.high_clock);
    put64(out + 56, r.reserved_ms);
    store_be64(out + 64, r.sysid);
    put32(out + 72, r.timeline);
    put32(out + kCrcAt, crc32c(out, kCrcAt));
}

DecodedRecord state_record_decode(const std::uint8_t* b, std::size_t len) noexcept {
    DecodedRecord d{StateRecord{}, RecordDamage::kNone};
    if (len != kStateRecordSize)
        d.damage = RecordDamage::kLength;
    else if (std::memcmp(b, kMagic, 8) != 0)
        d.damage = RecordDamage::kMagic;
    else if (get32(b + kCrcAt) != crc32c(b, kCrcAt))
        d.damage = RecordDamage::kChecksum;
    else if (get32(b + 8) != kStateFormatVersion)
        d.damage = RecordDamage::kVersion;
    if (d.damage != RecordDamage::kNone) return d;
    StateRecord& r = d.record;
    r.flags = get32(b + 12);
    r.boot = get64(b + 16);
    r.epoch_ms = get64(b + 24);
    r.last_time = get64(b + 32);
    r.last_seq = get64(b + 40);
    r.high_clock = get64(b + 48);
    r.reserved_ms = get64(b + 56);
    r.sysid = load_be64(b + 64);
    r.timeline = get32(b + 72);
    return d;
}

const char* record_damage_text(RecordDamage d) noexcept {
    switch (d) {
        case RecordDamage::kNone: return "intact";
        case RecordDamage::kLength: return "wrong length (truncated or extended)";
        case RecordDamage::kMagic: return "not an id_gen state record (bad magic)";
        case RecordDamage::kVersion: return "unknown format version";
        case RecordDamage::kChecksum: return "checksum mismatch";
    }
    return "unknown damage";
}

LegacyRecord legacy_poison(std::int64_t boot, std::int64_t epoch_ms) noexcept {
    // 0.1.0 takes last_time/last_seq when boot matches and the mark otherwise; both say "every unit
    // up to the end of time is used up", which no layout's time field can get past.
    return LegacyRecord{kLegacyMagic, boot, epoch_ms, INT64_MAX / 2, INT64_MAX / 2, INT64_MAX / 2, INT64_MAX};
}

bool legacy_is_poison(const LegacyRecord& r) noexcept {
    return r.magic == kLegacyMagic && r.reserved_ms == INT64_MAX && r.last_time == INT64_MAX / 2;
}

}  // namespace idgen
