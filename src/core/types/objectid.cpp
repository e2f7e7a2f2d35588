#include "core/types/objectid.h"

#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

constexpr char kHex[] = "0123456789abcdef";

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

ObjectId with_seconds(std::uint32_t s, std::uint8_t fill) noexcept {
    ObjectId id;
    id.bytes[0] = static_cast<std::uint8_t>(s >> 24);
    id.bytes[1] = static_cast<std::uint8_t>(s >> 16);
    id.bytes[2] = static_cast<std::uint8_t>(s >> 8);
    id.bytes[3] = static_cast<std::uint8_t>(s);
    for (int i = 4; i < 12; ++i) id.bytes[i] = fill;
    return id;
}

bool seconds_fit(std::int64_t s) noexcept { return s >= 0 && s <= kObjectIdMaxSeconds; }

}  // namespace

int objectid_process_id() noexcept { return process_id(); }

Result<ObjectId> objectid_parse(const char* s, std::size_t n) noexcept {
    if (n != kObjectIdTextLen) return Error::kInvalidSyntax;
    ObjectId id;
    for (std::size_t i = 0; i < 12; ++i) {
        const int hi = hex_value(s[2 * i]);
        const int lo = hex_value(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return Error::kInvalidSyntax;
        id.bytes[i] = static_cast<std::uint8_t>((hi << 4) | lo);
    }
    return id;
}

void objectid_format(const ObjectId& id, char* out) noexcept {
    for (std::size_t i = 0; i < 12; ++i) {
        out[2 * i] = kHex[id.bytes[i] >> 4];
        out[2 * i + 1] = kHex[id.bytes[i] & 0xF];
    }
}

std::uint32_t objectid_seconds(const ObjectId& id) noexcept {
    return (static_cast<std::uint32_t>(id.bytes[0]) << 24) | (static_cast<std::uint32_t>(id.bytes[1]) << 16) |
           (static_cast<std::uint32_t>(id.bytes[2]) << 8) | id.bytes[3];
}

Result<ObjectId> objectid_lower(std::int64_t unix_seconds) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    return with_seconds(static_cast<std::uint32_t>(unix_seconds), 0x00);
}

Result<ObjectId> objectid_upper(std::int64_t unix_seconds) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    return with_seconds(static_cast<std::uint32_t>(unix_seconds), 0xFF);
}

bool ObjectIdGenerator::ensure_seeded(int pid, ByteSource& random) noexcept {
    if (pid == pid_) return true;
    std::uint8_t fresh[8];
    if (!random.fill(fresh, sizeof fresh)) return false;
    for (int i = 0; i < 5; ++i) random_[i] = fresh[i];
    counter_ = (static_cast<std::uint32_t>(fresh[5]) << 16) | (static_cast<std::uint32_t>(fresh[6]) << 8) | fresh[7];
    last_seconds_ = -1;
    steps_in_second_ = 0;
    pid_ = pid;
    return true;
}

ObjectId ObjectIdGenerator::make(std::uint32_t seconds) noexcept {
    ObjectId id = with_seconds(seconds, 0);
    for (int i = 0; i < 5; ++i) id.bytes[4 + i] = random_[i];
    id.bytes[9] = static_cast<std::uint8_t>(counter_ >> 16);
    id.bytes[10] = static_cast<std::uint8_t>(counter_ >> 8);
    id.bytes[11] = static_cast<std::uint8_t>(counter_);
    counter_ = (counter_ + 1) & (kObjectIdCounterSpan - 1);  // 0xFFFFFF + 1 wraps to 0
    ++steps_in_second_;
    return id;
}

Result<ObjectId> ObjectIdGenerator::next(std::int64_t now_unix_seconds, int pid, ByteSource& random) noexcept {
    if (!ensure_seeded(pid, random)) return Error::kEntropyFailure;
    std::int64_t s = now_unix_seconds > last_seconds_ ? now_unix_seconds : last_seconds_;
    // Every counter value has been handed out since this second's first ID: the next one would
    // repeat it, so move on to the next second.
    if (s == last_seconds_ && steps_in_second_ >= kObjectIdCounterSpan) ++s;
    if (!seconds_fit(s)) return Error::kTimeOutOfRange;
    if (s != last_seconds_) {
        last_seconds_ = s;
        steps_in_second_ = 0;
    }
    return make(static_cast<std::uint32_t>(s));
}

Result<ObjectId> ObjectIdGenerator::at(std::int64_t unix_seconds, int pid, ByteSource& random) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    if (!ensure_seeded(pid, random)) return Error::kEntropyFailure;
    return make(static_cast<std::uint32_t>(unix_seconds));
}

}  // namespace idgen
