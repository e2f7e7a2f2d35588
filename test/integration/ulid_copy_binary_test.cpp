// Binary wire formats of ulid: COPY ... (FORMAT binary) out and back in, byte for byte, and binary
// result/parameter format through PQexecParams. libpqxx 6.4 streams are text-only and expose no raw
// handle, so these tests drive a separate libpq connection.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "core/types/ulid.h"

namespace {

using ConnPtr = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using ResPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

ConnPtr connect(const std::string& dsn) {
    ConnPtr c(PQconnectdb(dsn.c_str()), &PQfinish);
    return c;
}

ResPtr exec(PGconn* c, const std::string& sql) { return ResPtr(PQexec(c, sql.c_str()), &PQclear); }

std::string hex(const std::string& bytes) {
    static const char* d = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) {
        out += d[b >> 4];
        out += d[b & 15];
    }
    return out;
}

// COPY ... TO STDOUT; returns the whole stream, or sets `err`.
std::string copy_out(PGconn* c, const std::string& sql, std::string& err) {
    ResPtr r = exec(c, sql);
    if (PQresultStatus(r.get()) != PGRES_COPY_OUT) {
        err = PQerrorMessage(c);
        return {};
    }
    std::string data;
    for (;;) {
        char* buf = nullptr;
        int n = PQgetCopyData(c, &buf, 0);
        if (n > 0) {
            data.append(buf, static_cast<std::size_t>(n));
            PQfreemem(buf);
        } else if (n == -1) {
            break;
        } else {
            err = PQerrorMessage(c);
            return {};
        }
    }
    ResPtr fin(PQgetResult(c), &PQclear);
    if (PQresultStatus(fin.get()) != PGRES_COMMAND_OK) err = PQresultErrorMessage(fin.get());
    while (PGresult* extra = PQgetResult(c)) PQclear(extra);
    return data;
}

// COPY ... FROM STDIN with `data` sent in 64 kB pieces; returns "" or the server's error, and
// the SQLSTATE in `sqlstate`.
std::string copy_in(PGconn* c, const std::string& sql, const std::string& data, std::string* sqlstate = nullptr) {
    ResPtr r = exec(c, sql);
    if (PQresultStatus(r.get()) != PGRES_COPY_IN) return PQerrorMessage(c);
    for (std::size_t off = 0; off < data.size(); off += 65536) {
        std::size_t n = std::min<std::size_t>(65536, data.size() - off);
        if (PQputCopyData(c, data.data() + off, static_cast<int>(n)) != 1) return PQerrorMessage(c);
    }
    if (PQputCopyEnd(c, nullptr) != 1) return PQerrorMessage(c);
    std::string err;
    while (PGresult* fin = PQgetResult(c)) {
        if (PQresultStatus(fin) != PGRES_COMMAND_OK && err.empty()) {
            err = PQresultErrorMessage(fin);
            const char* st = PQresultErrorField(fin, PG_DIAG_SQLSTATE);
            if (sqlstate && st) *sqlstate = st;
        }
        PQclear(fin);
    }
    return err;
}

std::uint16_t be16(const std::string& s, std::size_t at) {
    return static_cast<std::uint16_t>((static_cast<unsigned char>(s[at]) << 8) | static_cast<unsigned char>(s[at + 1]));
}
std::int32_t be32(const std::string& s, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
    return static_cast<std::int32_t>(v);
}

struct BinaryRow {
    std::vector<std::string> fields;  // raw bytes; a NULL is reported as a length of -1 (none here)
    std::vector<std::int32_t> lengths;
};

// Parses PostgreSQL's binary COPY format (signature, flags, header extension, tuples, trailer).
// Returns false with `why` set on any deviation.
bool parse_binary_copy(const std::string& d, std::vector<BinaryRow>& rows, std::string& why) {
    static const char kSig[] = "PGCOPY\n\377\r\n";  // + a NUL: 11 bytes
    if (d.size() < 19 || std::memcmp(d.data(), kSig, 11) != 0) return why = "bad signature", false;
    std::size_t p = 11;
    if (be32(d, p) != 0) return why = "unexpected flags", false;
    p += 4;
    std::int32_t ext = be32(d, p);
    p += 4 + static_cast<std::size_t>(ext);
    for (;;) {
        if (p + 2 > d.size()) return why = "truncated before trailer", false;
        auto nf = static_cast<std::int16_t>(be16(d, p));
        p += 2;
        if (nf == -1) break;
        BinaryRow row;
        for (int f = 0; f < nf; ++f) {
            if (p + 4 > d.size()) return why = "truncated field length", false;
            std::int32_t len = be32(d, p);
            p += 4;
            row.lengths.push_back(len);
            if (len < 0) {
                row.fields.emplace_back();
                continue;
            }
            if (p + static_cast<std::size_t>(len) > d.size()) return why = "truncated field", false;
            row.fields.emplace_back(d.substr(p, static_cast<std::size_t>(len)));
            p += static_cast<std::size_t>(len);
        }
        rows.push_back(std::move(row));
    }
    if (p != d.size()) return why = "bytes after the trailer", false;
    return true;
}

std::string ulid_text_of(const std::string& raw16) {
    idgen::Ulid u{};
    std::memcpy(u.bytes, raw16.data(), 16);
    char out[idgen::kUlidTextLen];
    idgen::ulid_format(u, out);
    return std::string(out, idgen::kUlidTextLen);
}

class UlidBinary : public ::testing::Test {
protected:
    static constexpr int kRows = 20000;
    void SetUp() override {
        db_ = std::make_unique<idgen::it::ScratchDb>("it_ulid_copy_binary");
        conn_ = std::make_unique<ConnPtr>(connect(db_->dsn()));
        ASSERT_EQ(PQstatus(c()), CONNECTION_OK) << PQerrorMessage(c());
        // Generated IDs plus the extremes and a known vector; n identifies each row.
        ResPtr r =
            exec(c(),
                 "CREATE TABLE t (id ulid PRIMARY KEY, n int NOT NULL UNIQUE);"
                 "INSERT INTO t SELECT gen_ulid(), g FROM generate_series(1, " +
                     std::to_string(kRows) +
                     ") g;"
                     "INSERT INTO t VALUES ('00000000000000000000000000', -1), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', -2),"
                     "                     ('01ARZ3NDEKTSV4RRFFQ69G5FAV', -3);"
                     "CREATE TABLE t2 (LIKE t)");
        ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK) << PQerrorMessage(c());
    }
    PGconn* c() { return conn_->get(); }
    // n -> (text, hex of uuid_send) as the server sees each row of `table`.
    std::map<int, std::pair<std::string, std::string>> server_view(const std::string& table) {
        std::map<int, std::pair<std::string, std::string>> m;
        ResPtr r = exec(c(), "SELECT n, id::text, encode(uuid_send(id::uuid), 'hex') FROM " + table);
        EXPECT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK) << PQerrorMessage(c());
        for (int i = 0; i < PQntuples(r.get()); ++i)
            m[std::stoi(PQgetvalue(r.get(), i, 0))] = {PQgetvalue(r.get(), i, 1), PQgetvalue(r.get(), i, 2)};
        return m;
    }
    std::unique_ptr<idgen::it::ScratchDb> db_;
    std::unique_ptr<ConnPtr> conn_;
};

TEST_F(UlidBinary, CopyOutIsSixteenRawBigEndianBytesPerUlid) {
    std::string err;
    const std::string data = copy_out(c(), "COPY t TO STDOUT (FORMAT binary)", err);
    ASSERT_EQ(err, "");
    std::vector<BinaryRow> rows;
    std::string why;
    ASSERT_TRUE(parse_binary_copy(data, rows, why)) << why;
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRows + 3));
    auto view = server_view("t");
    for (const auto& row : rows) {
        ASSERT_EQ(row.fields.size(), 2u);
        ASSERT_EQ(row.lengths[0], 16) << "ulid field is not 16 bytes";
        ASSERT_EQ(row.lengths[1], 4);
        const int n = be32(row.fields[1], 0);
        auto it = view.find(n);
        ASSERT_NE(it, view.end()) << n;
        // The bytes are uuid_send's, and they decode (core formatter) to the server's text.
        EXPECT_EQ(hex(row.fields[0]), it->second.second) << "row " << n;
        EXPECT_EQ(ulid_text_of(row.fields[0]), it->second.first) << "row " << n;
    }
    EXPECT_EQ(hex(rows.back().fields[0]), "01563e3ab5d3d6764c61efb99302bd5b");  // spec vector (n = -3)
}

TEST_F(UlidBinary, CopyRoundTripIsByteExact) {
    std::string err;
    const std::string out1 = copy_out(c(), "COPY t TO STDOUT (FORMAT binary)", err);
    ASSERT_EQ(err, "");
    ASSERT_EQ(copy_in(c(), "COPY t2 FROM STDIN (FORMAT binary)", out1), "");
    // Same rows with the same bytes...
    ResPtr diff = exec(c(),
                       "SELECT count(*) FROM t FULL JOIN t2 ON t.id = t2.id AND t.n = t2.n "
                       "WHERE t.id IS NULL OR t2.id IS NULL");
    ASSERT_EQ(PQresultStatus(diff.get()), PGRES_TUPLES_OK) << PQerrorMessage(c());
    EXPECT_STREQ(PQgetvalue(diff.get(), 0, 0), "0");
    EXPECT_EQ(server_view("t2"), server_view("t"));
    // ...in the same heap order, so the second dump is the first, byte for byte.
    const std::string out2 = copy_out(c(), "COPY t2 TO STDOUT (FORMAT binary)", err);
    ASSERT_EQ(err, "");
    EXPECT_EQ(out2.size(), out1.size());
    EXPECT_TRUE(out2 == out1) << "binary COPY of the reloaded table differs";
    // And the binary form loads into a uuid column as the same bytes.
    ResPtr r = exec(c(), "CREATE TABLE tu (id uuid, n int)");
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK);
    ASSERT_EQ(copy_in(c(), "COPY tu FROM STDIN (FORMAT binary)", out1), "");
    ResPtr same = exec(c(), "SELECT count(*) FROM t JOIN tu ON t.id::uuid = tu.id AND t.n = tu.n");
    EXPECT_EQ(std::string(PQgetvalue(same.get(), 0, 0)), std::to_string(kRows + 3));
}

TEST_F(UlidBinary, CopyInRejectsFieldsThatAreNotSixteenBytes) {
    // Header, one tuple of one field, trailer; table with one ulid column.
    ResPtr r = exec(c(), "CREATE TABLE one (id ulid)");
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_COMMAND_OK);
    auto tuple = [](int len) {
        std::string d("PGCOPY\n\377\r\n\0", 11);
        d += std::string(8, '\0');    // flags, header extension length
        d += std::string("\0\1", 2);  // one field
        d += std::string("\0\0\0", 3) + static_cast<char>(len);
        d += std::string(static_cast<std::size_t>(len), '\x11');
        d += std::string("\xff\xff", 2);  // trailer
        return d;
    };
    for (int len : {15, 17, 0}) {
        std::string state;
        std::string err = copy_in(c(), "COPY one FROM STDIN (FORMAT binary)", tuple(len), &state);
        EXPECT_NE(err, "") << "a " << len << "-byte ulid was accepted";
        EXPECT_EQ(state, len == 17 ? "22P03" : "08P01") << err;  // bad binary format / insufficient data
    }
    std::string ok = copy_in(c(), "COPY one FROM STDIN (FORMAT binary)", tuple(16));
    EXPECT_EQ(ok, "");
    ResPtr v = exec(c(), "SELECT id::uuid::text FROM one");
    ASSERT_EQ(PQntuples(v.get()), 1);
    EXPECT_STREQ(PQgetvalue(v.get(), 0, 0), "11111111-1111-1111-1111-111111111111");
}

TEST_F(UlidBinary, BinaryResultAndParameterFormatAreUuidSendBytes) {
    // Result format 1: the ulid column comes back as 16 raw bytes equal to uuid_send's bytea.
    ResPtr r(PQexecParams(c(), "SELECT id, uuid_send(id::uuid), id::text FROM t ORDER BY 1", 0, nullptr, nullptr,
                          nullptr, nullptr, 1),
             &PQclear);
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK) << PQerrorMessage(c());
    ASSERT_EQ(PQntuples(r.get()), kRows + 3);
    ASSERT_EQ(PQfformat(r.get(), 0), 1);
    std::string prev;
    for (int i = 0; i < PQntuples(r.get()); ++i) {
        ASSERT_EQ(PQgetlength(r.get(), i, 0), 16);
        ASSERT_EQ(PQgetlength(r.get(), i, 1), 16);
        std::string raw(PQgetvalue(r.get(), i, 0), 16);
        ASSERT_EQ(raw, std::string(PQgetvalue(r.get(), i, 1), 16)) << "row " << i;
        ASSERT_EQ(ulid_text_of(raw), std::string(PQgetvalue(r.get(), i, 2), PQgetlength(r.get(), i, 2)));
        if (i > 0) {
            ASSERT_LT(prev, raw) << "byte order differs from ulid order at " << i;
        }
        prev = raw;
    }
    // Parameter format 1: 16 raw bytes sent as a ulid parameter are the ulid (ulid_recv).
    ResPtr oid = exec(c(), "SELECT 'ulid'::regtype::oid");
    Oid ulid_oid = static_cast<Oid>(std::stoul(PQgetvalue(oid.get(), 0, 0)));
    const unsigned char spec[16] = {0x01, 0x56, 0x3e, 0x3a, 0xb5, 0xd3, 0xd6, 0x76,
                                    0x4c, 0x61, 0xef, 0xb9, 0x93, 0x02, 0xbd, 0x5b};
    const char* values[1] = {reinterpret_cast<const char*>(spec)};
    int lengths[1] = {16};
    int formats[1] = {1};
    ResPtr p(PQexecParams(c(), "SELECT $1::text, n FROM t WHERE id = $1", 1, &ulid_oid, values, lengths, formats, 0),
             &PQclear);
    ASSERT_EQ(PQresultStatus(p.get()), PGRES_TUPLES_OK) << PQerrorMessage(c());
    ASSERT_EQ(PQntuples(p.get()), 1);
    EXPECT_STREQ(PQgetvalue(p.get(), 0, 0), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    EXPECT_STREQ(PQgetvalue(p.get(), 0, 1), "-3");
    // A 15-byte binary parameter is refused.
    lengths[0] = 15;
    ResPtr bad(PQexecParams(c(), "SELECT $1::text", 1, &ulid_oid, values, lengths, formats, 0), &PQclear);
    EXPECT_EQ(PQresultStatus(bad.get()), PGRES_FATAL_ERROR);
}

}  // namespace
