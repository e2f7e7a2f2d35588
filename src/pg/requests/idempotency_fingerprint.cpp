// id_gen: idempotency_fingerprint(payload jsonb, paths text[]): a fingerprint of a request for the
// idempotency-key store, the SHA-256 of its canonical JSON.
//
// Canonical JSON, in UTF-8 whatever the database encoding (a fingerprint is a function of the JSON
// value alone): every string and key is converted to UTF-8 first; no whitespace; object members
// sorted by their keys' UTF-8 bytes, which is Unicode code point order (jsonb itself keeps shorter
// keys first, and a WIN1251 or LATIN1 database's bytes sort otherwise); strings escaped as jsonb's
// output escapes them (\", \\, \b \f \n \r \t, other control characters as \u00XX, nothing else);
// numbers as exact decimals without exponent or trailing zeros (numeric_normalize: 1.50, 1.5e0
// and 15e-1 are all 1.5). This form is part of the stored data (fingerprints recorded with keys):
// it never changes between releases (in a UTF-8 database it is exactly that of 0.2.0).
#include <cstdlib>
#include <cstring>

#include "core/requests/idempotency.h"
#include "pg/base/boundary.h"

extern "C" {
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
}

namespace {

// A pointer as an error message shows it: control characters escaped, clipped.
struct Shown {
    char text[300];
};

Shown shown(const text* t) {
    Shown s;
    idgen::idem_escape_for_message(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), GetDatabaseEncoding() == PG_UTF8, s.text,
                                   sizeof s.text);
    return s;
}

// ---- canonical JSON ----------------------------------------------------------------------------

void canon_value(StringInfo out, const JsonbValue* v);

// Text in the database encoding as UTF-8 (NUL-terminated, fresh). The server's conversion error
// (22P05) only for a byte the encoding stores but cannot convert, as 0.2.0 raised it (it converted
// the whole canonical text at the end).
struct Utf8 {
    char* p;
    int len;
};

Utf8 to_utf8(const char* s, int len) {
    const char* u = pg_server_to_any(s, len, PG_UTF8);
    if (u == s) return {pnstrdup(s, len), len};
    return {const_cast<char*>(u), static_cast<int>(std::strlen(u))};
}

// A string already in UTF-8: escape_json() escapes byte by byte, only ASCII (", \, controls).
void canon_utf8(StringInfo out, const Utf8& u) { escape_json(out, u.p); }

void canon_string(StringInfo out, const char* s, int len) {
    Utf8 u = to_utf8(s, len);
    canon_utf8(out, u);
    pfree(u.p);
}

struct Member {
    const char* key;  // in UTF-8
    int keylen;
    JsonbValue value;
};

// Byte order of the keys' UTF-8, i.e. Unicode code point order; a prefix sorts first.
int member_cmp(const void* a, const void* b) {
    const auto* x = static_cast<const Member*>(a);
    const auto* y = static_cast<const Member*>(b);
    return idgen::idem_key_compare(x->key, static_cast<std::size_t>(x->keylen), y->key,
                                   static_cast<std::size_t>(y->keylen));
}

void canon_container(StringInfo out, JsonbContainer* c) {
    check_stack_depth();
    JsonbIterator* it = JsonbIteratorInit(c);
    JsonbValue v;
    JsonbIteratorToken tok = JsonbIteratorNext(&it, &v, true);
    if (tok == WJB_BEGIN_ARRAY) {
        const bool raw_scalar = v.val.array.rawScalar;
        if (!raw_scalar) appendStringInfoChar(out, '[');
        bool first = true;
        while ((tok = JsonbIteratorNext(&it, &v, true)) == WJB_ELEM) {
            if (!first) appendStringInfoChar(out, ',');
            first = false;
            canon_value(out, &v);
        }
        if (!raw_scalar) appendStringInfoChar(out, ']');
        return;
    }
    if (tok != WJB_BEGIN_OBJECT) elog(ERROR, "unexpected jsonb token %d", static_cast<int>(tok));
    const int n = static_cast<int>(JsonContainerSize(c));
    auto* members = static_cast<Member*>(palloc(sizeof(Member) * (n > 0 ? n : 1)));
    int k = 0;
    while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_END_OBJECT && tok != WJB_DONE) {
        if (tok == WJB_KEY) {
            if (k >= n) elog(ERROR, "jsonb object has more members than it says");
            const Utf8 u = to_utf8(v.val.string.val, v.val.string.len);
            members[k].key = u.p;
            members[k].keylen = u.len;
        } else if (tok == WJB_VALUE) {
            members[k++].value = v;
        }
    }
    qsort(members, static_cast<std::size_t>(k), sizeof(Member), member_cmp);
    appendStringInfoChar(out, '{');
    for (int i = 0; i < k; ++i) {
        if (i > 0) appendStringInfoChar(out, ',');
        canon_utf8(out, {const_cast<char*>(members[i].key), members[i].keylen});
        appendStringInfoChar(out, ':');
        canon_value(out, &members[i].value);
    }
    appendStringInfoChar(out, '}');
    for (int i = 0; i < k; ++i) pfree(const_cast<char*>(members[i].key));
    pfree(members);
}

void canon_value(StringInfo out, const JsonbValue* v) {
    switch (v->type) {
        case jbvNull: appendStringInfoString(out, "null"); return;
        case jbvBool: appendStringInfoString(out, v->val.boolean ? "true" : "false"); return;
        case jbvNumeric:
            // Exact decimal, no exponent, no trailing zeros: 1.50, 1.5e0 and 15e-1 are all 1.5.
            appendStringInfoString(out, numeric_normalize(v->val.numeric));
            return;
        case jbvString: canon_string(out, v->val.string.val, v->val.string.len); return;
        case jbvBinary: canon_container(out, v->val.binary.data); return;
        default: elog(ERROR, "unexpected jsonb value type %d", static_cast<int>(v->type));
    }
}

// The value a JSON Pointer (already checked) selects in `jb`; false when it selects nothing.
bool resolve(Jsonb* jb, const char* p, std::size_t n, JsonbValue* result) {
    JsonbValue cur;
    if (JB_ROOT_IS_SCALAR(jb)) {
        if (!JsonbExtractScalar(&jb->root, &cur)) return false;
    } else {
        cur.type = jbvBinary;
        cur.val.binary.data = &jb->root;
        cur.val.binary.len = static_cast<int>(VARSIZE(jb) - VARHDRSZ);
    }
    char* tok = static_cast<char*>(palloc(n + 1));
    std::size_t pos = 0;
    while (pos < n) {
        const std::size_t len = idgen::json_pointer_token(p, n, &pos, tok);
        if (cur.type != jbvBinary) return false;
        JsonbContainer* c = cur.val.binary.data;
        JsonbValue* next = nullptr;
        if (JsonContainerIsObject(c)) {
            JsonbValue k;
            k.type = jbvString;
            k.val.string.val = tok;
            k.val.string.len = static_cast<int>(len);
            next = findJsonbValueFromContainer(c, JB_FOBJECT, &k);
        } else if (JsonContainerIsArray(c)) {
            auto index = idgen::json_pointer_index(tok, len);
            if (!index) return false;
            next = getIthJsonbValueFromContainer(c, *index);
        }
        if (next == nullptr) return false;
        cur = *next;
    }
    *result = cur;
    return true;
}

struct JsonPointer {
    const char* p;  // in the database encoding: resolved against the payload
    int len;
    Utf8 u;  // in UTF-8: sorted and written
};

int pointer_cmp(const void* a, const void* b) {
    const auto* x = static_cast<const JsonPointer*>(a);
    const auto* y = static_cast<const JsonPointer*>(b);
    return idgen::idem_key_compare(x->u.p, static_cast<std::size_t>(x->u.len), y->u.p,
                                   static_cast<std::size_t>(y->u.len));
}

}  // namespace

// idempotency_fingerprint(payload jsonb, paths text[] DEFAULT NULL) -> text: the SHA-256, in
// lower-case hex, of the payload's canonical JSON (no whitespace, object members sorted by key,
// numbers as exact decimals), or, with paths, of the canonical JSON of the object mapping each
// JSON Pointer that selects something to what it selects.
IDGEN_FUNCTION(idempotency_fingerprint) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    Jsonb* jb = PG_GETARG_JSONB_P(0);
    StringInfoData out;
    initStringInfo(&out);
    if (PG_ARGISNULL(1)) {
        canon_container(&out, &jb->root);
    } else {
        ArrayType* arr = PG_GETARG_ARRAYTYPE_P(1);
        Datum* elems = nullptr;
        bool* elem_nulls = nullptr;
        int n = 0;
        deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &elem_nulls, &n);
        auto* ptrs = static_cast<JsonPointer*>(palloc(sizeof(JsonPointer) * (n > 0 ? n : 1)));
        for (int i = 0; i < n; ++i) {
            if (elem_nulls[i])
                ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                                errmsg("a path of idempotency_fingerprint() must not be null")));
            const text* t = DatumGetTextPP(elems[i]);
            ptrs[i].p = VARDATA_ANY(t);
            ptrs[i].len = static_cast<int>(VARSIZE_ANY_EXHDR(t));
            if (!idgen::json_pointer_check(ptrs[i].p, static_cast<std::size_t>(ptrs[i].len)))
                ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                                errmsg("invalid input syntax for a JSON pointer: \"%s\"", shown(t).text),
                                errdetail("A JSON pointer (RFC 6901) is empty or starts with \"/\", and every \"~\" "
                                          "in it is followed by \"0\" or \"1\".")));
            ptrs[i].u = to_utf8(ptrs[i].p, ptrs[i].len);
        }
        qsort(ptrs, static_cast<std::size_t>(n), sizeof(JsonPointer), pointer_cmp);
        appendStringInfoChar(&out, '{');
        bool first = true;
        for (int i = 0; i < n; ++i) {
            if (i > 0 && pointer_cmp(&ptrs[i - 1], &ptrs[i]) == 0) continue;
            JsonbValue v;
            if (!resolve(jb, ptrs[i].p, static_cast<std::size_t>(ptrs[i].len), &v)) continue;
            if (!first) appendStringInfoChar(&out, ',');
            first = false;
            canon_utf8(&out, ptrs[i].u);
            appendStringInfoChar(&out, ':');
            canon_value(&out, &v);
        }
        appendStringInfoChar(&out, '}');
    }
    // out is UTF-8 whatever the database encoding.
    const auto len = static_cast<std::size_t>(out.len);
    auto* in = static_cast<bytea*>(palloc(VARHDRSZ + len));
    SET_VARSIZE(in, VARHDRSZ + len);
    std::memcpy(VARDATA(in), out.data, len);
    bytea* digest = DatumGetByteaPP(DirectFunctionCall1(sha256_bytea, PointerGetDatum(in)));
    static constexpr char kHex[] = "0123456789abcdef";
    const auto* d = reinterpret_cast<const unsigned char*>(VARDATA_ANY(digest));
    const int dlen = static_cast<int>(VARSIZE_ANY_EXHDR(digest));
    text* result = static_cast<text*>(palloc(VARHDRSZ + 2 * dlen));
    SET_VARSIZE(result, VARHDRSZ + 2 * dlen);
    char* o = VARDATA(result);
    for (int i = 0; i < dlen; ++i) {
        o[2 * i] = kHex[d[i] >> 4];
        o[2 * i + 1] = kHex[d[i] & 15];
    }
    PG_RETURN_TEXT_P(result);
}
