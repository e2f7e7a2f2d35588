// The generator state record (format 2): round trips, every damage class, and 0.1.0's poison record
// read the way 0.1.0 reads it.
#include "core/state/state_record.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/types/snowflake.h"

using idgen::RecordDamage;
using idgen::StateRecord;

namespace {

StateRecord sample() {
    StateRecord r;
    r.flags = idgen::kStateNeedsSync;
    r.boot = 123456789;
    r.epoch_ms = idgen::kTwitterEpochMs;
    r.last_time = 1 << 30;
    r.last_seq = 4095;
    r.high_clock = (1 << 30) - 5;
    r.reserved_ms = 1700000000123;
    r.sysid = 0xFEDCBA9876543210ULL;
    r.timeline = 7;
    return r;
}

}  // namespace

TEST(StateRecord, RoundTripsEveryField) {
    std::uint8_t buf[idgen::kStateRecordSize];
    idgen::state_record_encode(sample(), buf);
    const auto d = idgen::state_record_decode(buf, sizeof buf);
    ASSERT_EQ(d.damage, RecordDamage::kNone);
    const StateRecord a = sample();
    EXPECT_EQ(d.record.flags, a.flags);
    EXPECT_EQ(d.record.boot, a.boot);
    EXPECT_EQ(d.record.epoch_ms, a.epoch_ms);
    EXPECT_EQ(d.record.last_time, a.last_time);
    EXPECT_EQ(d.record.last_seq, a.last_seq);
    EXPECT_EQ(d.record.high_clock, a.high_clock);
    EXPECT_EQ(d.record.reserved_ms, a.reserved_ms);
    EXPECT_EQ(d.record.sysid, a.sysid);
    EXPECT_EQ(d.record.timeline, a.timeline);
    // Negative values (no mark, nothing issued) survive too.
    StateRecord n;
    idgen::state_record_encode(n, buf);
    const auto dn = idgen::state_record_decode(buf, sizeof buf);
    ASSERT_EQ(dn.damage, RecordDamage::kNone);
    EXPECT_EQ(dn.record.reserved_ms, INT64_MIN);
    EXPECT_EQ(dn.record.last_time, -1);
}

// The layout is fixed and big-endian: the magic first, the version next (a reader of another
// format must see the difference, not a garbled mark).
TEST(StateRecord, FixedLayout) {
    std::uint8_t buf[idgen::kStateRecordSize];
    idgen::state_record_encode(sample(), buf);
    EXPECT_EQ(std::memcmp(buf, "idgenST2", 8), 0);
    EXPECT_EQ(buf[11], 2);
    // reserved_ms at 56, big-endian.
    std::int64_t m = 0;
    for (int i = 0; i < 8; ++i) m = (m << 8) | buf[56 + i];
    EXPECT_EQ(m, 1700000000123);
}

TEST(StateRecord, EveryTruncationAndExtensionIsDamage) {
    std::uint8_t buf[idgen::kStateRecordSize + 1] = {};
    idgen::state_record_encode(sample(), buf);
    for (std::size_t len = 0; len <= idgen::kStateRecordSize + 1; ++len) {
        const auto d = idgen::state_record_decode(buf, len);
        if (len == idgen::kStateRecordSize)
            EXPECT_EQ(d.damage, RecordDamage::kNone);
        else
            EXPECT_EQ(d.damage, RecordDamage::kLength) << len;
    }
}

// Any single flipped bit is caught: in the magic as bad magic, anywhere else by the checksum.
TEST(StateRecord, EverySingleBitFlipIsDamage) {
    std::uint8_t good[idgen::kStateRecordSize];
    idgen::state_record_encode(sample(), good);
    for (std::size_t bit = 0; bit < idgen::kStateRecordSize * 8; ++bit) {
        std::uint8_t b[idgen::kStateRecordSize];
        std::memcpy(b, good, sizeof b);
        b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        const auto d = idgen::state_record_decode(b, sizeof b);
        EXPECT_NE(d.damage, RecordDamage::kNone) << "bit " << bit;
        if (bit < 64)
            EXPECT_EQ(d.damage, RecordDamage::kMagic) << "bit " << bit;
        else
            EXPECT_EQ(d.damage, RecordDamage::kChecksum) << "bit " << bit;
    }
}

// A record of another format version with a valid checksum is reported as such.
TEST(StateRecord, OtherVersionIsNamed) {
    std::uint8_t b[idgen::kStateRecordSize];
    idgen::state_record_encode(sample(), b);
    b[11] = 3;
    const std::uint32_t c = idgen::crc32c(b, idgen::kStateRecordSize - 4);
    b[76] = static_cast<std::uint8_t>(c >> 24);
    b[77] = static_cast<std::uint8_t>(c >> 16);
    b[78] = static_cast<std::uint8_t>(c >> 8);
    b[79] = static_cast<std::uint8_t>(c);
    EXPECT_EQ(idgen::state_record_decode(b, sizeof b).damage, RecordDamage::kVersion);
    // 0.1.0's file is 56 bytes: a length error, never read as a record.
    EXPECT_EQ(idgen::state_record_decode(b, idgen::kLegacyRecordSize).damage, RecordDamage::kLength);
}

// CRC-32C check value (RFC 3720 / iSCSI): "123456789" -> 0xE3069283.
TEST(StateRecord, Crc32cKnownValue) {
    const char* s = "123456789";
    EXPECT_EQ(idgen::crc32c(reinterpret_cast<const std::uint8_t*>(s), 9), 0xE3069283u);
}

// 0.1.0 reads its record either as live state (same boot) or as a mark (another boot): both ways
// the poison record leaves it no ID to issue, on every layout and epoch, so a backend still running
// the old library refuses instead of repeating IDs the new one issues. This replays 0.1.0's logic
// (same core step function, 0.1.0's two read paths).
TEST(StateRecord, LegacyPoisonStopsTheOldGenerator) {
    const char* names[] = {"twitter", "sonyflake", "javascript"};
    std::vector<idgen::SnowflakeLayout> layouts;
    for (const char* n : names) layouts.push_back(*idgen::snowflake_named_layout(n, std::strlen(n)));
    layouts.push_back(idgen::instagram_layout(1704067200000));
    layouts.push_back(*idgen::snowflake_custom_layout(-(std::int64_t{1} << 52), 20, 3, 2));
    const std::int64_t now = 1790000000000;
    for (const auto& l : layouts) {
        const auto p = idgen::legacy_poison(42, l.epoch_ms);
        EXPECT_TRUE(idgen::legacy_is_poison(p));
        // Same boot: live state.
        idgen::SnowflakeState live{p.last_time, p.last_seq, p.high_clock};
        auto s = idgen::snowflake_step(live, l, 0, now, 1000, p.reserved_ms);
        EXPECT_FALSE(s.ok()) << static_cast<int>(l.kind);
        // Another boot: the mark, restated for the epoch, then restored.
        idgen::SnowflakeState st{};
        idgen::snowflake_state_restore(st, l, idgen::snowflake_mark_for_epoch(p.reserved_ms, p.epoch_ms, l.epoch_ms));
        auto s2 = idgen::snowflake_step(st, l, 0, now, 60000, p.reserved_ms);
        EXPECT_FALSE(s2.ok()) << static_cast<int>(l.kind);
    }
    // An ordinary record is not mistaken for the poison.
    idgen::LegacyRecord ordinary{idgen::kLegacyMagic, 1, 2, 3, 4, 5, 6};
    EXPECT_FALSE(idgen::legacy_is_poison(ordinary));
}
