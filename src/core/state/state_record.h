// id_gen core: the persisted record of a snowflake generator (format 2), and 0.1.0's record.
//
// One record per generator key, in its own file under $PGDATA/pg_idgen/v2/. Fixed 80 bytes,
// big-endian, so a file moved between machines reads the same:
//
//   0  magic "idgenST2"     8   format version (2)       12  flags (bit 0: needs sync)
//   16 boot (server start time of the run whose live state this is; 0 = the mark only)
//   24 epoch_ms   32 last_time   40 last_seq   48 high_clock   56 reserved_ms (the high-water mark)
//   64 system identifier   72 timeline (u32)   76 CRC-32C of bytes 0..75
//
// A record that is short, long, or fails its magic, version or checksum is damaged: decoding says
// which, and the caller refuses to issue (a damaged mark is never read as "no mark").
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kStateRecordSize = 80;
inline constexpr std::uint32_t kStateFormatVersion = 2;
inline constexpr std::uint32_t kStateNeedsSync = 1;  // a write of this record was not confirmed by fsync

struct StateRecord {
    std::uint32_t flags = 0;
    std::int64_t boot = 0;
    std::int64_t epoch_ms = 0;
    std::int64_t last_time = -1;
    std::int64_t last_seq = 0;
    std::int64_t high_clock = -1;
    std::int64_t reserved_ms = INT64_MIN;  // INT64_MIN: no mark
    std::uint64_t sysid = 0;
    std::uint32_t timeline = 0;
};

enum class RecordDamage : std::uint8_t { kNone, kLength, kMagic, kVersion, kChecksum };

struct DecodedRecord {
    StateRecord record;
    RecordDamage damage;
};

void state_record_encode(const StateRecord& r, std::uint8_t out[kStateRecordSize]) noexcept;
// `len` is how many bytes the file holds (the whole file is passed, up to kStateRecordSize + 1).
[[nodiscard]] DecodedRecord state_record_decode(const std::uint8_t* bytes, std::size_t len) noexcept;
[[nodiscard]] const char* record_damage_text(RecordDamage d) noexcept;

// CRC-32C (Castagnoli), as PostgreSQL uses for its own control files.
[[nodiscard]] std::uint32_t crc32c(const std::uint8_t* p, std::size_t n) noexcept;

// 0.1.0's record ($PGDATA/pg_idgen/<key>, 56 bytes, host byte order, no checksum).
inline constexpr std::size_t kLegacyRecordSize = 56;
inline constexpr std::uint64_t kLegacyMagic = 0x69645f67656e5331ULL;  // "id_genS1" as a host integer
struct LegacyRecord {
    std::uint64_t magic;
    std::int64_t boot;
    std::int64_t epoch_ms;
    std::int64_t last_time;
    std::int64_t last_seq;
    std::int64_t high_clock;
    std::int64_t reserved_ms;
};
static_assert(sizeof(LegacyRecord) == kLegacyRecordSize);

// What 0.1.0 code reads as "this generator can issue nothing more": its step sees a used-up
// sequence at the last time value of any layout and refuses (its message says the clock is outside
// the layout's time range). Written by the new library into 0.1.0's file so that a backend still
// running the old library (after an install, before the restart) cannot issue IDs the new library
// also issues. `boot` is the running server's start time (so the old code takes the live state).
[[nodiscard]] LegacyRecord legacy_poison(std::int64_t boot, std::int64_t epoch_ms) noexcept;
[[nodiscard]] bool legacy_is_poison(const LegacyRecord& r) noexcept;

}  // namespace idgen
