// id_gen: gen_nanoid(size, alphabet): random text over an alphabet (see src/core/types/nanoid.h).
#include <cstddef>
#include <cstdint>

#include "core/base/clock.h"
#include "core/types/nanoid.h"
#include "pg/base/boundary.h"
#include "pg/generators/backend_entropy.h"

extern "C" {
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
}

namespace {

// The default alphabet, checked once per backend (trivially destructible).
idgen::NanoidAlphabet g_default;
bool g_default_ready = false;

// Raised directly from the prologue: every local in scope is trivially destructible.
[[noreturn]] void raise_alphabet(idgen::NanoidAlphabetCheck check, const idgen::NanoidAlphabet& a, std::size_t n) {
    switch (check) {
        case idgen::NanoidAlphabetCheck::kTooShort:
        case idgen::NanoidAlphabetCheck::kTooLong:
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("NanoID alphabet of %zu bytes: it must be 2 to 255 single-byte characters", n)));
            break;
        case idgen::NanoidAlphabetCheck::kRepeated:
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("NanoID alphabet repeats the character \"%c\"", static_cast<char>(a.repeated)),
                            errhint("Give each character once: a repeated one would be drawn more often.")));
            break;
        case idgen::NanoidAlphabetCheck::kMultibyte:
            ereport(ERROR,
                    (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("NanoID alphabet has a multibyte character"),
                     errhint("The alphabet is 2 to 255 distinct single-byte characters (ASCII in UTF-8).")));
            break;
        case idgen::NanoidAlphabetCheck::kNul:
        case idgen::NanoidAlphabetCheck::kValid: break;
    }
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("invalid NanoID alphabet")));
    pg_unreachable();
}

}  // namespace

IDGEN_FUNCTION(gen_nanoid) {
    const int32 size = PG_GETARG_INT32(0);
    if (size < static_cast<int32>(idgen::kNanoidMinSize) || size > static_cast<int32>(idgen::kNanoidMaxSize))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("NanoID size %d is out of range", size),
                        errhint("The size is 1 to 255 characters.")));
    const text* alphabet_text = PG_GETARG_TEXT_PP(1);
    const char* a = VARDATA_ANY(alphabet_text);
    const std::size_t n = VARSIZE_ANY_EXHDR(alphabet_text);
    // The default alphabet (the common call) is checked once; any other every call.
    const idgen::NanoidAlphabet* alphabet;
    static idgen::NanoidAlphabet given;
    if (n == sizeof idgen::kNanoidDefaultAlphabet - 1 && memcmp(a, idgen::kNanoidDefaultAlphabet, n) == 0) {
        if (!g_default_ready) {
            (void)idgen::nanoid_alphabet(idgen::kNanoidDefaultAlphabet, n, false, g_default);
            g_default_ready = true;
        }
        alphabet = &g_default;
    } else {
        const auto check = idgen::nanoid_alphabet(a, n, pg_database_encoding_max_length() == 1, given);
        if (check != idgen::NanoidAlphabetCheck::kValid) raise_alphabet(check, given, n);
        alphabet = &given;
    }
    text* out = static_cast<text*>(palloc(VARHDRSZ + size));
    SET_VARSIZE(out, VARHDRSZ + size);
    const idgen::Error e =
        idgen::nanoid_generate(*alphabet, static_cast<std::size_t>(size), idgen::pg::backend_entropy(), VARDATA(out));
    if (e != idgen::Error::kOk) return failure.fail(e, "nanoid", "gen_nanoid");
    PG_RETURN_TEXT_P(out);
}
