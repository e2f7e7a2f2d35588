// id_gen: SQL entry points of UUIDv6 on the built-in uuid: uuidv6(), uuid_v1_to_v6(),
// uuid_v6_to_v1(), and the timestamp reader behind uuid_extract_timestamp() / uuid_time() since
// 0.3.0, which reads versions 1, 6 and 7.
#include <cstdint>

#include "core/base/clock.h"
#include "core/types/uuidv6.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/generators/backend_entropy.h"
#include "pg/types/pg_uuid.h"

extern "C" {
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

using idgen::Uuid;
using idgen::pg::arg_uuid;
using idgen::pg::kPgEpochUnixUs;
using idgen::pg::return_uuid;

namespace {

constexpr const char* kType = "uuid";

// 22023 for a UUID of another version. Raised directly: every local in scope of the callers is
// trivially destructible (plain structs of bytes).
[[noreturn]] void raise_wrong_version(const Uuid& id, int want) {
    char text[UUID_LEN * 2 + 5];
    static const char* hex = "0123456789abcdef";
    int p = 0;
    for (int i = 0; i < UUID_LEN; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text[p++] = '-';
        text[p++] = hex[id.bytes[i] >> 4];
        text[p++] = hex[id.bytes[i] & 15];
    }
    text[p] = '\0';
    const int v = idgen::uuid_version(id);
    if (v < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("UUID \"%s\" is not an RFC 9562 UUID (its variant is not 0b10)", text),
                        errhint("Only a version %d UUID can be converted here.", want)));
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("UUID \"%s\" is version %d, not version %d", text, v, want)));
    pg_unreachable();
}

// Per process (a process a backend forks starts afresh, see PerProcess); trivially destructible.
// Its own timestamp, independent of the UUIDv7 clock.
idgen::PerProcess<idgen::Uuidv6Generator> g_generator;

}  // namespace

IDGEN_FUNCTION(gen_uuidv6) {
    auto id = g_generator.get().next(idgen::unix_time_ns(), idgen::pg::backend_entropy());
    if (!id) return failure.fail(id.error(), kType, "the clock is outside 1582-10-15 .. 5236-03-31");
    return return_uuid(*id);
}

IDGEN_FUNCTION(uuid_v1_to_v6) {
    const Uuid in = *arg_uuid(fcinfo, 0);
    const idgen::UuidConversion c = idgen::uuid_v1_to_v6(in);
    if (!c.ok) raise_wrong_version(in, 1);
    return return_uuid(c.id);
}

IDGEN_FUNCTION(uuid_v6_to_v1) {
    const Uuid in = *arg_uuid(fcinfo, 0);
    const idgen::UuidConversion c = idgen::uuid_v6_to_v1(in);
    if (!c.ok) raise_wrong_version(in, 6);
    return return_uuid(c.id);
}

IDGEN_FUNCTION(uuid_time_v167) {
    const idgen::UuidTime t = idgen::uuid_time_v167(*arg_uuid(fcinfo, 0));
    if (!t.present) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(t.unix_us - kPgEpochUnixUs);
}
