// id_gen: SQL entry points of the objectid type (MongoDB ObjectId).
#include <cstring>

#include "core/base/bytes.h"
#include "core/base/clock.h"
#include "core/types/objectid.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/types/byte_type.h"

extern "C" {
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
}

using idgen::ObjectId;

namespace {

constexpr const char* kType = "objectid";
constexpr std::size_t kLen = sizeof(ObjectId);
constexpr char kOidKey[] = "$oid";
constexpr std::size_t kOidKeyLen = sizeof kOidKey - 1;

const ObjectId* arg_oid(FunctionCallInfo fcinfo, int n) {
    return reinterpret_cast<const ObjectId*>(PG_GETARG_POINTER(n));
}

Datum return_oid(const ObjectId& id) {
    auto* out = static_cast<ObjectId*>(palloc(kLen));
    *out = id;
    return PointerGetDatum(out);
}

// Per backend. Trivially destructible; seeded on first use in this process (see ObjectIdGenerator).
idgen::ObjectIdGenerator g_generator;

// The seed (random value, counter start) comes straight from the kernel, not from the backend's
// buffered pool: it is drawn once per process, and the random value is the one thing two processes
// must never share (the pool is per process too, keyed by process_id()).
class KernelBytes final : public idgen::ByteSource {
public:
    bool fill(std::uint8_t* out, std::size_t n) noexcept override { return idgen::os_random(out, n); }
};
KernelBytes g_kernel_bytes;

// Seconds of a timestamptz, rounded down; infinities map far outside the type's range.
std::int64_t timestamptz_seconds(TimestampTz ts) {
    return idgen::objectid_floor_seconds(idgen::pg::timestamptz_to_unix_ms(ts));
}

// The value of {"$oid": "<24 hex>"} with exactly that one key, or nullptr.
const JsonbValue* oid_member(Jsonb* jb, JsonbValue* key) {
    if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb) || JB_ROOT_COUNT(jb) != 1) return nullptr;
    key->type = jbvString;
    key->val.string.val = const_cast<char*>(kOidKey);
    key->val.string.len = kOidKeyLen;
    const JsonbValue* v = findJsonbValueFromContainer(&jb->root, JB_FOBJECT, key);
    return v != nullptr && v->type == jbvString ? v : nullptr;
}

// `shown` is the input as the user wrote it (json), or nullptr for jsonb's own text.
Datum from_jsonb(Jsonb* jb, const char* shown, idgen::pg::Failure& failure) {
    JsonbValue key;
    const JsonbValue* v = oid_member(jb, &key);
    if (v != nullptr) {
        auto parsed = idgen::objectid_parse(v->val.string.val, static_cast<std::size_t>(v->val.string.len));
        if (parsed) return return_oid(*parsed);
    }
    if (shown == nullptr) shown = JsonbToCString(nullptr, &jb->root, VARSIZE(jb));
    return failure.fail(idgen::Error::kInvalidSyntax, kType, shown);
}

}  // namespace

IDGEN_FUNCTION(objectid_in) {
    const char* text = PG_GETARG_CSTRING(0);
    auto parsed = idgen::objectid_parse(text, std::strlen(text));
    if (!parsed) return failure.fail(parsed.error(), kType, text);
    return return_oid(*parsed);
}

IDGEN_FUNCTION(objectid_out) {
    const ObjectId* id = arg_oid(fcinfo, 0);
    char* out = static_cast<char*>(palloc(idgen::kObjectIdTextLen + 1));
    idgen::objectid_format(*id, out);
    out[idgen::kObjectIdTextLen] = '\0';
    PG_RETURN_CSTRING(out);
}

// ---- binary I/O, comparison, hashing, sorting, min/max (byte_type.h) -----------------------------

IDGEN_BYTE_TYPE_SUPPORT(objectid, idgen::ObjectId)

// ---- generation, time -------------------------------------------------------------------------

IDGEN_FUNCTION(gen_objectid) {
    // The process id as getpid() gives it (re-read after every fork), not a value remembered at
    // start-up: a generator that ran before a fork sees another id in the child and draws anew.
    auto id = g_generator.next(idgen::unix_time_ns() / 1000000000, idgen::objectid_process_id(), g_kernel_bytes);
    if (!id) return failure.fail(id.error(), kType, "the clock is past 2106-02-07 06:28:15+00");
    return return_oid(*id);
}

IDGEN_FUNCTION(gen_objectid_at) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = g_generator.at(timestamptz_seconds(ts), idgen::objectid_process_id(), g_kernel_bytes);
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_oid(*id);
}

IDGEN_FUNCTION(objectid_time) {
    const ObjectId* id = arg_oid(fcinfo, 0);
    PG_RETURN_TIMESTAMPTZ(
        idgen::pg::unix_ms_to_timestamptz(static_cast<std::int64_t>(idgen::objectid_seconds(*id)) * 1000));
}

IDGEN_FUNCTION(objectid_lower) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::objectid_lower(timestamptz_seconds(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_oid(*id);
}

IDGEN_FUNCTION(objectid_upper) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::objectid_upper(timestamptz_seconds(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_oid(*id);
}

// ---- bytea ------------------------------------------------------------------------------------

IDGEN_FUNCTION(objectid_to_bytea) {
    const ObjectId* id = arg_oid(fcinfo, 0);
    bytea* out = static_cast<bytea*>(palloc(VARHDRSZ + kLen));
    SET_VARSIZE(out, VARHDRSZ + kLen);
    std::memcpy(VARDATA(out), id->bytes, kLen);
    PG_RETURN_BYTEA_P(out);
}

// Exactly 12 bytes. Any other length is not an ObjectId's representation: 22P02, with the value
// shown as bytea's hex text.
IDGEN_FUNCTION(objectid_from_bytea) {
    const bytea* in = PG_GETARG_BYTEA_PP(0);
    const std::size_t n = VARSIZE_ANY_EXHDR(in);
    if (n == kLen) {
        auto* out = static_cast<ObjectId*>(palloc(kLen));
        std::memcpy(out->bytes, VARDATA_ANY(in), kLen);
        PG_RETURN_POINTER(out);
    }
    const std::size_t shown = n < 100 ? n : 100;  // the message keeps the first 100 bytes
    char* hex = static_cast<char*>(palloc(2 + 2 * shown + 4));
    static constexpr char digits[] = "0123456789abcdef";
    const auto* b = reinterpret_cast<const unsigned char*>(VARDATA_ANY(in));
    std::size_t k = 0;
    hex[k++] = '\\';
    hex[k++] = 'x';
    for (std::size_t i = 0; i < shown; ++i) {
        hex[k++] = digits[b[i] >> 4];
        hex[k++] = digits[b[i] & 0xF];
    }
    if (shown < n) {
        hex[k++] = '.';
        hex[k++] = '.';
        hex[k++] = '.';
    }
    hex[k] = '\0';
    return failure.fail(idgen::Error::kInvalidSyntax, kType, hex);
}

// ---- MongoDB Extended JSON: {"$oid": "<24 hex>"} ------------------------------------------------

IDGEN_FUNCTION(objectid_to_json) {
    const ObjectId* id = arg_oid(fcinfo, 0);
    constexpr char head[] = "{\"$oid\": \"";
    constexpr char tail[] = "\"}";
    constexpr std::size_t len = sizeof head - 1 + idgen::kObjectIdTextLen + sizeof tail - 1;
    text* out = static_cast<text*>(palloc(VARHDRSZ + len));
    SET_VARSIZE(out, VARHDRSZ + len);
    char* p = VARDATA(out);
    std::memcpy(p, head, sizeof head - 1);
    idgen::objectid_format(*id, p + sizeof head - 1);
    std::memcpy(p + sizeof head - 1 + idgen::kObjectIdTextLen, tail, sizeof tail - 1);
    PG_RETURN_TEXT_P(out);
}

IDGEN_FUNCTION(objectid_to_jsonb) {
    const ObjectId* id = arg_oid(fcinfo, 0);
    char* hex = static_cast<char*>(palloc(idgen::kObjectIdTextLen));
    idgen::objectid_format(*id, hex);
    JsonbParseState* state = nullptr;
    JsonbValue key;
    key.type = jbvString;
    key.val.string.val = const_cast<char*>(kOidKey);
    key.val.string.len = kOidKeyLen;
    JsonbValue value;
    value.type = jbvString;
    value.val.string.val = hex;
    value.val.string.len = idgen::kObjectIdTextLen;
    pushJsonbValue(&state, WJB_BEGIN_OBJECT, nullptr);
    pushJsonbValue(&state, WJB_KEY, &key);
    pushJsonbValue(&state, WJB_VALUE, &value);
    JsonbValue* object = pushJsonbValue(&state, WJB_END_OBJECT, nullptr);
    PG_RETURN_POINTER(JsonbValueToJsonb(object));
}

IDGEN_FUNCTION(objectid_from_jsonb) {
    Jsonb* jb = PG_GETARG_JSONB_P(0);
    return from_jsonb(jb, nullptr, failure);
}

// json is text: read it as jsonb (a duplicate key keeps its last value, as jsonb does).
IDGEN_FUNCTION(objectid_from_json) {
    const char* json = text_to_cstring(PG_GETARG_TEXT_PP(0));
    Jsonb* jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
    return from_jsonb(jb, json, failure);
}
