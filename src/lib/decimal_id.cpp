// id_gen C++ library: DecimalIds over src/core (the layout gen_decimal_id() issues).
#include <string>

#include "core/types/snowflake.h"
#include "core/types/trace_decimal.h"
#include "id_gen/decimal_id.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kBigint = "bigint";

std::int64_t parse_bigint(std::string_view text) {
    return detail::value_or_throw(idgen::snowflake_parse(text.data(), text.size()), kBigint, text);
}

}  // namespace

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

}  // namespace id_gen
