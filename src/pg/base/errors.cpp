// id_gen: the single place where core errors become PostgreSQL errors.
#include <cstdio>
#include <cstring>

#include "pg/base/boundary.h"

extern "C" {
#include "mb/pg_wchar.h"
#include "utils/elog.h"
}

namespace idgen::pg {

namespace {
// Copies src[0..n) into dst (NUL-terminated). Longer input is cut at a character boundary of the
// database encoding (never inside a multibyte character) and marked with "...".
void copy_clipped(char* dst, std::size_t cap, const char* src, std::size_t n) noexcept {
    if (src == nullptr) {
        dst[0] = '\0';
        return;
    }
    if (n < cap) {
        std::memcpy(dst, src, n);
        dst[n] = '\0';
        return;
    }
    const int len = n > 0x7fffffff ? 0x7fffffff : static_cast<int>(n);
    const int keep = pg_mbcliplen(src, len, static_cast<int>(cap - 4));
    std::memcpy(dst, src, static_cast<std::size_t>(keep));
    std::memcpy(dst + keep, "...", 4);
}
}  // namespace

Datum Failure::fail(Error e, const char* type, const char* offending) noexcept {
    return fail(e, type, offending, offending ? std::strlen(offending) : 0);
}

Datum Failure::fail(Error e, const char* type, const char* offending, std::size_t len) noexcept {
    code = e;
    type_name = type;
    copy_clipped(value, sizeof value, offending, len);
    return (Datum)0;
}

void Failure::set_exception(const char* message) noexcept {
    exception = true;
    const char* m = message ? message : "unknown exception";
    copy_clipped(what, sizeof what, m, std::strlen(m));
}

void raise_failure(const Failure& f, fmNodePtr escontext) {
    const char* type = f.type_name ? f.type_name : "id";
    if (f.exception) {
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("id_gen internal error: %s", f.what)));
    }
    switch (f.code) {
        case Error::kOk:
            return;
        case Error::kInvalidSyntax:
            IDGEN_ERRSAVE(escontext, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                                      errmsg("invalid input syntax for type %s: \"%s\"", type, f.value)));
            return;
        case Error::kOutOfRange:
            IDGEN_ERRSAVE(escontext, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                                      errmsg("value \"%s\" is out of range for type %s", f.value, type)));
            return;
        case Error::kTimeOutOfRange:
            IDGEN_ERRSAVE(escontext, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                                      errmsg("timestamp \"%s\" is out of range for type %s", f.value, type)));
            return;
        case Error::kEntropyFailure:
            ereport(ERROR, (errcode(ERRCODE_SYSTEM_ERROR),
                            errmsg("could not read random bytes from the kernel for type %s", type)));
            return;
        case Error::kCapacityExceeded:
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("%s generator capacity exceeded: %s", type, f.value)));
            return;
        case Error::kInvalidPrefix:
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("invalid prefix \"%s\"", f.value),
                            errhint("A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter.")));
            return;
        case Error::kWrongPrefix:  // value: what was expected and what was found
            IDGEN_ERRSAVE(escontext, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                                      errmsg("invalid input syntax for a prefixed ID: %s", f.value)));
            return;
        case Error::kLayoutExhausted:
            ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                            errmsg("cannot issue another %s: %s", type, f.value)));
            return;
        case Error::kStateIoError:
            ereport(ERROR, (errcode(ERRCODE_IO_ERROR), errmsg("%s generator state: %s", type, f.value),
                            errdetail("No ID was issued."),
                            errhint("Check the disk and the server log. A state record whose write or fsync "
                                    "failed is rewritten and fsync'd before the next ID is issued; until that "
                                    "succeeds, the generator refuses.")));
            return;
        case Error::kStateDamaged:
            ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("%s generator state: %s", type, f.value),
                            errdetail("No ID was issued: the file holds the high-water mark that keeps IDs from "
                                      "repeating after a restart, and it cannot be read."),
                            errhint("Restore the file from a backup of the data directory. If the server's clock "
                                    "is known to be past every ID this generator issued (for snowflakes: the time "
                                    "of the largest ID, plus id_gen.max_run_ahead), remove the file instead: a new "
                                    "one starts at the clock plus id_gen.max_run_ahead plus 1 s.")));
            return;
        case Error::kStateLockTimeout:
            ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE), errmsg("%s generator state: %s", type, f.value),
                            errdetail("No ID was issued.")));
            return;
        case Error::kNoOutcome:
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("id_gen internal error: %s", f.value),
                            errdetail("No ID was issued.")));
            return;
    }
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("id_gen: unknown error code %d", static_cast<int>(f.code))));
}

}  // namespace idgen::pg
