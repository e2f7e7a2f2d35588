// id_gen C++ library: TraceIds over src/core (the layout gen_trace_id() issues).
#include <string>

#include "core/types/snowflake.h"
#include "core/types/trace_decimal.h"
#include "id_gen/trace_id.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kBigint = "bigint";

std::int64_t parse_bigint(std::string_view text) {
    return detail::value_or_throw(idgen::snowflake_parse(text.data(), text.size()), kBigint, text);
}

bool trace_valid(std::int64_t v) noexcept { return v > 0 && idgen::trace_unpack(v).counter != 0; }

}  // namespace

// ---- TraceId -------------------------------------------------------------------------------

TraceId TraceId::from_int(std::int64_t value) {
    if (!trace_valid(value))
        detail::throw_error(errc::out_of_range,
                            "value \"" + std::to_string(value) + "\" is not a TraceId (not positive, or counter 0)");
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
std::int64_t TraceId::unix_seconds(std::int64_t reference) const noexcept {
    return idgen::trace_time_s(value_, reference);
}

}  // namespace id_gen
