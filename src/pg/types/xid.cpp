// id_gen: SQL entry points of the rsxid type (the rs/xid format; PostgreSQL's own `xid` is the
// transaction ID type, so the SQL type has another name; its functions keep the xid_ prefix).
#include <cstring>

#include "core/base/bytes.h"
#include "core/base/clock.h"
#include "core/types/objectid.h"
#include "core/types/xid.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/types/byte_type.h"
#include "pg/types/bytea_hex.h"

extern "C" {
#include "access/xlog.h"
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
}

using idgen::Xid;

namespace {

constexpr const char* kType = "rsxid";
constexpr std::size_t kLen = sizeof(Xid);

const Xid* arg_xid(FunctionCallInfo fcinfo, int n) { return reinterpret_cast<const Xid*>(PG_GETARG_POINTER(n)); }

Datum return_xid(const Xid& id) {
    auto* out = static_cast<Xid*>(palloc(kLen));
    *out = id;
    return PointerGetDatum(out);
}

// Per backend. Trivially destructible; the counter's start is drawn on first use in this process
// and again after a fork (XidGenerator keys it by the process id, as gen_objectid does).
idgen::XidGenerator g_generator;

// The counter's start comes straight from the kernel, as gen_objectid's seed does: a draw once per
// process, which needs no buffer.
class KernelBytes final : public idgen::ByteSource {
public:
    bool fill(std::uint8_t* out, std::size_t n) noexcept override { return idgen::os_random(out, n); }
};
KernelBytes g_kernel_bytes;

// The server's machine ID: from pg_control's system identifier, which every server made by
// initdb draws afresh and which a restart keeps (a copied data directory, a base backup, a
// standby and pg_upgrade's new cluster... see the README for which share it). Read once.
bool g_machine_known = false;
std::uint32_t g_machine = 0;

std::uint32_t machine_id() {
    if (!g_machine_known) {
        g_machine = idgen::xid_machine_from_system_id(GetSystemIdentifier());
        g_machine_known = true;
    }
    return g_machine;
}

std::int64_t timestamptz_seconds(TimestampTz ts) {
    return idgen::objectid_floor_seconds(idgen::pg::timestamptz_to_unix_ms(ts));
}

}  // namespace

IDGEN_FUNCTION(rsxid_in) {
    const char* text = PG_GETARG_CSTRING(0);
    auto parsed = idgen::xid_parse(text, std::strlen(text));
    if (!parsed) return failure.fail(parsed.error(), kType, text);
    return return_xid(*parsed);
}

IDGEN_FUNCTION(rsxid_out) {
    const Xid* id = arg_xid(fcinfo, 0);
    char* out = static_cast<char*>(palloc(idgen::kXidTextLen + 1));
    idgen::xid_format(*id, out);
    out[idgen::kXidTextLen] = '\0';
    PG_RETURN_CSTRING(out);
}

// ---- binary I/O, comparison, hashing, sorting, min/max (byte_type.h) -----------------------------

// The same hash as objectid's on the same 12 bytes (hash_any), so a rsxid::objectid cast keeps
// hash partitioning stable.
IDGEN_BYTE_TYPE_SUPPORT(rsxid, idgen::Xid)

// ---- generation, decoding, time -----------------------------------------------------------------

IDGEN_FUNCTION(gen_xid) {
    const std::uint32_t machine = machine_id();
    auto id =
        g_generator.next(idgen::unix_time_ns() / 1000000000, machine, idgen::objectid_process_id(), g_kernel_bytes);
    if (!id) return failure.fail(id.error(), kType, "the clock is past 2106-02-07 06:28:15+00");
    return return_xid(*id);
}

IDGEN_FUNCTION(xid_time) {
    const Xid* id = arg_xid(fcinfo, 0);
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(static_cast<std::int64_t>(idgen::xid_seconds(*id)) * 1000));
}

IDGEN_FUNCTION(xid_machine) { PG_RETURN_INT32(static_cast<int32>(idgen::xid_machine(*arg_xid(fcinfo, 0)))); }
IDGEN_FUNCTION(xid_pid) { PG_RETURN_INT32(static_cast<int32>(idgen::xid_pid(*arg_xid(fcinfo, 0)))); }
IDGEN_FUNCTION(xid_counter) { PG_RETURN_INT32(static_cast<int32>(idgen::xid_counter(*arg_xid(fcinfo, 0)))); }

// This server's machine ID, as gen_xid() writes it.
IDGEN_FUNCTION(xid_server_machine) { PG_RETURN_INT32(static_cast<int32>(machine_id())); }

IDGEN_FUNCTION(xid_lower) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::xid_lower(timestamptz_seconds(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_xid(*id);
}

IDGEN_FUNCTION(xid_upper) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::xid_upper(timestamptz_seconds(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_xid(*id);
}

// ---- bytea ------------------------------------------------------------------------------------

IDGEN_FUNCTION(rsxid_to_bytea) {
    const Xid* id = arg_xid(fcinfo, 0);
    bytea* out = static_cast<bytea*>(palloc(VARHDRSZ + kLen));
    SET_VARSIZE(out, VARHDRSZ + kLen);
    std::memcpy(VARDATA(out), id->bytes, kLen);
    PG_RETURN_BYTEA_P(out);
}

IDGEN_FUNCTION(rsxid_from_bytea) {
    const bytea* in = PG_GETARG_BYTEA_PP(0);
    const std::size_t n = VARSIZE_ANY_EXHDR(in);
    const auto* b = reinterpret_cast<const unsigned char*>(VARDATA_ANY(in));
    if (n == kLen) {
        auto* out = static_cast<Xid*>(palloc(kLen));
        std::memcpy(out->bytes, b, kLen);
        PG_RETURN_POINTER(out);
    }
    return failure.fail(idgen::Error::kInvalidSyntax, kType, idgen::pg::bytea_hex_for_message(b, n));
}
