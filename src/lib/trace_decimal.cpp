// id_gen C++ library: TraceId, DecimalId and ShardId over src/core (trace_decimal, snowflake).
#include <string>

#include "core/types/snowflake.h"
#include "core/types/trace_decimal.h"
#include "id_gen/shard_id.hpp"
#include "id_gen/trace_decimal.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kBigint = "bigint";

std::int64_t parse_bigint(std::string_view text) {
    return detail::value_or_throw(idgen::snowflake_parse(text.data(), text.size()), kBigint, text);
}

bool trace_valid(std::int64_t v) noexcept {
    return v > 0 && idgen::trace_unpack(v).counter != 0;
}

}  // namespace

// ---- TraceId -------------------------------------------------------------------------------

TraceId TraceId::from_int(std::int64_t value) {
    if (!trace_valid(value))
        detail::throw_error(errc::out_of_range, "value \"" + std::to_string(value) +
                                                    "\" is not a TraceId (not positive, or counter 0)");
    return TraceId(value);
}

TraceId TraceId::parse(std::string_view text) { return from_int(parse_bigint(text)); }

std::optional<TraceId> TraceId::try_parse(std::string_view text) noexcept {
    auto r = idgen::snowflake_parse(text.data(), text.size());
    if (!r || !trace_valid(*r)) return std::nullopt;
    return TraceId(*r);
}

TraceId TraceId::pack(std::int64_t unix_seconds, std::uint32_t node, std::uint32_t counter) {
    auto r = idgen::trace_pack(unix_seconds, node, counter);
    if (!r)
        detail::throw_error(errc::out_of_range, "TraceId fields out of range: seconds " + std::to_string(unix_seconds) +
                                                    ", node " + std::to_string(node) + ", counter " +
                                                    std::to_string(counter));
    return TraceId(*r);
}

std::string TraceId::to_string() const { return std::to_string(value_); }
std::uint32_t TraceId::node() const noexcept { return idgen::trace_unpack(value_).node; }
std::uint32_t TraceId::counter() const noexcept { return idgen::trace_unpack(value_).counter; }
std::int64_t TraceId::unix_seconds(std::int64_t reference) const noexcept { return idgen::trace_time_s(value_, reference); }

// ---- DecimalId -----------------------------------------------------------------------------

DecimalId DecimalId::from_int(std::int64_t value) {
    if (!idgen::decimal_unpack(value))
        detail::throw_error(errc::out_of_range, "value \"" + std::to_string(value) + "\" is not a DecimalId");
    return DecimalId(value);
}

DecimalId DecimalId::parse(std::string_view text) { return from_int(parse_bigint(text)); }

std::optional<DecimalId> DecimalId::try_parse(std::string_view text) noexcept {
    auto r = idgen::snowflake_parse(text.data(), text.size());
    if (!r || !idgen::decimal_unpack(*r)) return std::nullopt;
    return DecimalId(*r);
}

DecimalId DecimalId::pack(std::int64_t counter, std::int64_t generator, std::int64_t launch) {
    auto r = idgen::decimal_pack(counter, generator, launch);
    if (!r)
        detail::throw_error(errc::out_of_range, "DecimalId fields out of range: counter " + std::to_string(counter) +
                                                    ", generator " + std::to_string(generator) + ", launch " +
                                                    std::to_string(launch));
    return DecimalId(*r);
}

std::string DecimalId::to_string() const { return std::to_string(value_); }
std::int64_t DecimalId::counter() const noexcept { return idgen::decimal_unpack(value_)->counter; }
std::int64_t DecimalId::generator() const noexcept { return idgen::decimal_unpack(value_)->generator; }
std::int64_t DecimalId::launch() const noexcept { return idgen::decimal_unpack(value_)->launch; }

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
