// idempotency_fingerprint() is a function of the JSON value alone: the same logical value gives
// the same fingerprint in a UTF8, a LATIN1 and a WIN1251 database, including values whose object
// keys sort differently in the database's bytes than in UTF-8, and its result in a UTF8 database
// is the SHA-256 of the canonical JSON as the README writes it (so fingerprints already stored
// keep their value). The client always speaks UTF-8; the server converts.
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "common.h"

namespace {

using idgen::it::dsn;

// A database of the given encoding with the extension, dropped at the end.
class EncodedDb {
public:
    EncodedDb(std::string name, const std::string& encoding) : name_(std::move(name)) {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + name_ + " ENCODING '" + encoding +
                "' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
        pqxx::connection c(this->dsn());
        pqxx::nontransaction t2(c);
        t2.exec("CREATE EXTENSION id_gen");
        EXPECT_EQ(t2.exec1("SHOW server_encoding")[0].as<std::string>(), encoding);
    }
    ~EncodedDb() {
        try {
            pqxx::connection admin(idgen::it::dsn());
            pqxx::nontransaction tx(admin);
            tx.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        } catch (...) {}
    }
    EncodedDb(const EncodedDb&) = delete;
    EncodedDb& operator=(const EncodedDb&) = delete;
    [[nodiscard]] std::string dsn() const { return idgen::it::dsn(name_) + " client_encoding=UTF8"; }

private:
    std::string name_;
};

std::string fingerprint(const std::string& conn, const std::string& json, const std::string& paths = "") {
    pqxx::connection c(conn);
    pqxx::nontransaction tx(c);
    if (paths.empty()) return tx.exec_params1("SELECT idempotency_fingerprint($1::jsonb)", json)[0].as<std::string>();
    return tx.exec_params1("SELECT idempotency_fingerprint($1::jsonb, $2::text[])", json, paths)[0].as<std::string>();
}

struct Case {
    const char* what;
    std::string json, paths;
    const char* sha256;  // of the canonical JSON in UTF-8 (written out in the comment)
    bool latin1;         // LATIN1 can hold every character of it
};

const std::vector<Case>& cases() {
    static const std::vector<Case> k = {
        // {"я":1,"ё":2}: я (U+044F) sorts before ё (U+0451); in WIN1251 bytes ё (0xB8) before я (0xFF).
        {"cyrillic keys", R"({"ё": 2, "я": 1})", "", "65a268c316f77860865dccedab7f3393cd3536db54cdebb1a89d9779183641ca",
         false},
        // The same keys, one written as a \u escape.
        {"cyrillic keys, escaped", R"({"\u0451": 2, "я": 1})", "",
         "65a268c316f77860865dccedab7f3393cd3536db54cdebb1a89d9779183641ca", false},
        // {"a":{"а":null,"є":true},"я":[1.5,"ё\n"],"€":"x"}: € (U+20AC) is 0x88 in WIN1251, before
        // every Cyrillic letter; є (U+0454) is 0xBA, before а (U+0430, 0xE0).
        {"nested, euro sign", R"({"€": "x", "я": [1.50, "ё\n"], "a": {"є": true, "а": null}})", "",
         "f18e46891f8e052afa7ff3ad6b5595755939a851c18c61d90f48253d39af1a9a", false},
        // {"/я":1,"/ё":2}: the paths sort as the keys do.
        {"cyrillic paths", R"({"ё": 2, "я": 1, "ж": 3})", R"({/ё,/я})",
         "0a7393d7fd5e7c9380c832d26bcbcaae2337576bc795aa428c90db6c70fbedf7", false},
        // {"ab":"±\t","z":{"Z":0.1,"»":[]},"§":1,"°":"©","µa":false}: one byte each in LATIN1 and
        // WIN1251, two in UTF-8 (jsonb keeps shorter keys first).
        {"latin-1 keys", R"({"§": 1, "ab": "±\t", "z": {"»": [], "Z": 0.10}, "\u00b5a": false, "°": "\u00a9"})", "",
         "e51df1732631768595d4e276d9e27f7ef4cf049cb7acd72ed58ec82a31de2925", true},
        // {"/ab":"±\t","/§":1,"/°":"©"}
        {"latin-1 paths", R"({"§": 1, "ab": "±\t", "°": "©", "x": 0})", R"({/°,/ab,/§,/nothing})",
         "ec196280405433bc1fc6fdb4829af8f300a49b522f72f41d1bd5931d5cde1a60", true},
    };
    return k;
}

TEST(FingerprintEncoding, SameValueSameFingerprintInEveryEncoding) {
    EncodedDb utf8("it_fp_utf8", "UTF8"), latin1("it_fp_latin1", "LATIN1"), win1251("it_fp_win1251", "WIN1251");
    for (const Case& c : cases()) {
        // UTF8: the documented canonical form (unchanged from 0.2.0).
        EXPECT_EQ(fingerprint(utf8.dsn(), c.json, c.paths), c.sha256) << c.what;
        EXPECT_EQ(fingerprint(win1251.dsn(), c.json, c.paths), c.sha256) << c.what << " (WIN1251)";
        if (c.latin1) {
            EXPECT_EQ(fingerprint(latin1.dsn(), c.json, c.paths), c.sha256) << c.what << " (LATIN1)";
        }
    }
}

// A value a LATIN1 database cannot hold is refused by the server's own input conversion, with its
// usual error, before the fingerprint is computed.
TEST(FingerprintEncoding, Latin1RefusesWhatItCannotHold) {
    EncodedDb latin1("it_fp_latin1_refuse", "LATIN1");
    for (const std::string json : {R"({"я": 1})", R"({"a": "\u044f"})", R"({"€": 1})"}) {
        std::string state, message;
        try {
            fingerprint(latin1.dsn(), json);
        } catch (const pqxx::sql_error& e) {
            state = e.sqlstate();
            message = e.what();
        }
        EXPECT_EQ(state, "22P05") << json << ": " << message;  // untranslatable_character
        EXPECT_NE(message.find("LATIN1"), std::string::npos) << message;
    }
    // What it can hold works, and the session is fine afterwards.
    EXPECT_EQ(fingerprint(latin1.dsn(), cases()[4].json), cases()[4].sha256);
}

}  // namespace
