// id_gen: SQL entry points of prefixed typed IDs: format, parse against an expected prefix, split.
// The registry (prefix_register, gen_prefixed, ...) is SQL in src/sql/35_prefixed.sql; these
// functions check the shape of a prefix, not its registration, so they stay IMMUTABLE and usable
// in generated columns, views and expression indexes.
#include <cstdint>
#include <cstring>

#include "boundary.h"
#include "core/prefixed.h"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/uuid.h"
}

namespace {

constexpr const char* kType = "prefixed ID";

struct TextArg {
    const char* data;
    std::size_t len;
};

TextArg arg_text(FunctionCallInfo fcinfo, int n) {
    const text* t = PG_GETARG_TEXT_PP(n);
    return {VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)};
}

}  // namespace

// prefixed_format(prefix text, id uuid) -> text
IDGEN_FUNCTION(prefixed_format) {
    const TextArg prefix = arg_text(fcinfo, 0);
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(1));
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kPrefixedMaxLen));
    auto n = idgen::prefixed_format(prefix.data, prefix.len, id->data, VARDATA(out));
    if (!n) {
        return failure.fail(n.error(), kType, prefix.data, prefix.len);
    }
    SET_VARSIZE(out, VARHDRSZ + *n);
    PG_RETURN_TEXT_P(out);
}

// prefixed_parse(expected_prefix text, value text) -> uuid
IDGEN_FUNCTION(prefixed_parse) {
    const TextArg expected = arg_text(fcinfo, 0);
    const TextArg value = arg_text(fcinfo, 1);
    auto* out = static_cast<pg_uuid_t*>(palloc(UUID_LEN));
    if (!idgen::prefix_valid(expected.data, expected.len)) {
        return failure.fail(idgen::Error::kInvalidPrefix, kType, expected.data, expected.len);
    }
    auto parsed = idgen::prefixed_parse(value.data, value.len);
    if (!parsed) return failure.fail(parsed.error(), kType, value.data, value.len);
    if (parsed->prefix_len != expected.len || std::memcmp(parsed->prefix, expected.data, expected.len) != 0) {
        // Both prefixes are valid (at most 16 ASCII characters) and the value parsed, so it is at
        // most kPrefixedMaxLen ASCII characters: the message fits.
        char message[256];
        snprintf(message, sizeof message, "expected prefix \"%.*s\", found \"%.*s\" in \"%.*s\"",
                 static_cast<int>(expected.len), expected.data, static_cast<int>(parsed->prefix_len), parsed->prefix,
                 static_cast<int>(value.len), value.data);
        return failure.fail(idgen::Error::kWrongPrefix, kType, message);
    }
    std::memcpy(out->data, parsed->id, UUID_LEN);
    PG_RETURN_UUID_P(out);
}

// prefixed_split(value text, OUT prefix text, OUT id uuid) -> record
IDGEN_FUNCTION(prefixed_split) {
    const TextArg value = arg_text(fcinfo, 0);
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("prefixed_split must return a record")));
    tupdesc = BlessTupleDesc(tupdesc);
    auto* id = static_cast<pg_uuid_t*>(palloc(UUID_LEN));
    auto parsed = idgen::prefixed_parse(value.data, value.len);
    if (!parsed) {
        return failure.fail(parsed.error(), kType, value.data, value.len);
    }
    std::memcpy(id->data, parsed->id, UUID_LEN);
    Datum values[2] = {PointerGetDatum(cstring_to_text_with_len(parsed->prefix, parsed->prefix_len)),
                       UUIDPGetDatum(id)};
    bool nulls[2] = {false, false};
    return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}
