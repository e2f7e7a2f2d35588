// id_gen C++ library: per-schema shard IDs over src/core (the instagram layout a shard's next_id() issues).
#include <string>

#include "core/types/snowflake.h"
#include "id_gen/shard_id.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kBigint = "bigint";

std::int64_t parse_bigint(std::string_view text) {
    return detail::value_or_throw(idgen::snowflake_parse(text.data(), text.size()), kBigint, text);
}

}  // namespace

// ---- ShardId -------------------------------------------------------------------------------

ShardId ShardId::from_int(std::int64_t value) {
    if (value < 1) detail::throw_error(errc::out_of_range, "value \"" + std::to_string(value) + "\" is not a shard ID");
    return ShardId(value);
}

ShardId ShardId::parse(std::string_view text) { return ShardId(parse_bigint(text)); }

std::optional<ShardId> ShardId::try_parse(std::string_view text) noexcept {
    auto r = idgen::snowflake_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return ShardId(*r);
}

std::string ShardId::to_string() const { return std::to_string(value_); }
std::uint32_t ShardId::shard() const noexcept {
    return idgen::snowflake_unpack(idgen::instagram_layout(default_epoch_ms), value_).node;
}
std::uint32_t ShardId::sequence() const noexcept {
    return idgen::snowflake_unpack(idgen::instagram_layout(default_epoch_ms), value_).seq;
}
std::int64_t ShardId::unix_ms(std::int64_t epoch_ms) const noexcept {
    return idgen::snowflake_time_ms(idgen::instagram_layout(epoch_ms), value_);
}

ShardIdGenerator::ShardIdGenerator(std::uint32_t shard, std::int64_t epoch_ms, SnowflakeOptions options)
    : shard_(shard) {
    if (shard > ShardId::shard_max)
        detail::throw_error(errc::invalid_argument, "shard " + std::to_string(shard) + " is outside 0 .. 8191");
    gen_ = std::make_unique<SnowflakeGenerator>(shard, SnowflakeLayout::instagram(epoch_ms), std::move(options));
}

ShardId ShardIdGenerator::next() { return ShardId(gen_->next().value()); }

}  // namespace id_gen
