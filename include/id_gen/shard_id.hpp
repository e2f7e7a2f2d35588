// id_gen C++ library: Instagram-style per-schema shard IDs (SQL: bigint from a shard's next_id()).
//
// 41 bits of milliseconds since the shard's epoch | 13-bit shard number | 10-bit sequence (the
// instagram layout with the shard's own epoch; create_shard()'s default epoch is 2024-01-01).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/snowflake.hpp"

namespace id_gen {

class ShardId {
public:
    static constexpr std::size_t max_text_size = 19;

    constexpr ShardId() noexcept = default;                          // 0: not an ID (what libpqxx fills before reading)
    static constexpr std::int64_t default_epoch_ms = 1704067200000;  // 2024-01-01, create_shard()'s default
    static constexpr std::uint32_t shard_max = 8191;

    // errc::out_of_range unless 1 <= value <= 2^63-1.
    [[nodiscard]] static ShardId from_int(std::int64_t value);
    [[nodiscard]] static ShardId parse(std::string_view text);
    [[nodiscard]] static std::optional<ShardId> try_parse(std::string_view text) noexcept;

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;
    // SQL: shard_id_shard, shard_id_sequence, shard_id_time(id, epoch).
    [[nodiscard]] std::uint32_t shard() const noexcept;
    [[nodiscard]] std::uint32_t sequence() const noexcept;
    [[nodiscard]] std::int64_t unix_ms(std::int64_t epoch_ms = default_epoch_ms) const noexcept;

    friend constexpr bool operator==(ShardId a, ShardId b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(ShardId a, ShardId b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(ShardId a, ShardId b) noexcept { return a.value_ < b.value_; }

private:
    constexpr explicit ShardId(std::int64_t v) noexcept : value_(v) {}
    friend class ShardIdGenerator;
    std::int64_t value_ = 0;
};

// Shard IDs for one shard number and epoch, made in the application: the snowflake generator over
// the shard's layout (1,024 IDs per ms; run-ahead, waits and fork() as SnowflakeGenerator). The
// state is in this object only: use a shard number no server (and no other generator) issues.
class ShardIdGenerator {
public:
    // errc::invalid_argument for a shard above 8,191.
    explicit ShardIdGenerator(std::uint32_t shard, std::int64_t epoch_ms = ShardId::default_epoch_ms,
                              SnowflakeOptions options = {});
    [[nodiscard]] ShardId next();
    [[nodiscard]] std::uint32_t shard() const noexcept { return shard_; }

private:
    std::uint32_t shard_;
    std::unique_ptr<SnowflakeGenerator> gen_;
};

}  // namespace id_gen
