// id_gen: the single place where core errors become PostgreSQL errors. The SQLSTATEs and texts
// are the core's table (src/core/base/errors.h), which the C++ library throws from too.
#include <cstring>

#include "core/base/errors.h"
#include "pg/base/boundary.h"

extern "C" {
#include "mb/pg_wchar.h"
#include "utils/elog.h"
}

namespace idgen::pg {

namespace {
// The database encoding's rule: never cut inside a multibyte character.
std::size_t db_clip_length(const char* s, std::size_t n, std::size_t limit) noexcept {
    const int len = n > 0x7fffffff ? 0x7fffffff : static_cast<int>(n);
    return static_cast<std::size_t>(pg_mbcliplen(s, len, static_cast<int>(limit)));
}

int sqlstate_code(const char* s) noexcept { return MAKE_SQLSTATE(s[0], s[1], s[2], s[3], s[4]); }
}  // namespace

Datum Failure::fail(Error e, const char* type, const char* offending) noexcept {
    return fail(e, type, offending, offending ? std::strlen(offending) : 0);
}

Datum Failure::fail(Error e, const char* type, const char* offending, std::size_t len) noexcept {
    code = e;
    type_name = type;
    clip_shown_value(offending, len, value, db_clip_length);
    return (Datum)0;
}

void Failure::set_exception(const char* message) noexcept {
    exception = true;
    const char* m = message ? message : "unknown exception";
    clip_shown_value(m, std::strlen(m), what, db_clip_length);
}

void raise_failure(const Failure& f, fmNodePtr escontext) {
    if (f.exception) {
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("id_gen internal error: %s", f.what)));
    }
    if (f.code == Error::kOk) return;
    // The value is at most kShownValueCap bytes, the type a short name: the message fits.
    char message[2 * kShownValueCap + 256];
    error_message(f.code, f.type_name ? f.type_name : "id", f.value, std::strlen(f.value), message, sizeof message);
    const ErrorText* t = error_text(f.code);
    if (t == nullptr) ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s", message)));
    if (t->soft) {
        IDGEN_ERRSAVE(escontext, (errcode(sqlstate_code(t->sqlstate)), errmsg("%s", message)));
        return;
    }
    ereport(ERROR, (errcode(sqlstate_code(t->sqlstate)), errmsg("%s", message),
                    t->detail ? errdetail("%s", t->detail) : 0, t->hint ? errhint("%s", t->hint) : 0));
}

}  // namespace idgen::pg
