#include "core/requests/idempotency.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using idgen::Error;

namespace {

std::size_t control_at(const std::string& s, bool utf8 = true) {
    return idgen::idem_control_offset(s.data(), s.size(), utf8);
}

std::string escaped(const std::string& s, std::size_t cap = 64, bool utf8 = true) {
    std::vector<char> out(cap, '#');
    const std::size_t n = idgen::idem_escape_for_message(s.data(), s.size(), utf8, out.data(), cap);
    EXPECT_LT(n, cap);
    EXPECT_EQ(out[n], '\0');
    return std::string(out.data(), n);
}

std::vector<std::string> tokens(const std::string& p) {
    std::vector<std::string> out;
    std::string buf(p.size() + 1, '\0');
    std::size_t pos = 0;
    while (pos < p.size()) {
        const std::size_t n = idgen::json_pointer_token(p.data(), p.size(), &pos, buf.data());
        out.emplace_back(buf.data(), n);
    }
    return out;
}

}  // namespace

TEST(IdempotencyLabel, ControlCharacters) {
    EXPECT_EQ(control_at("req-0193b2c4-9f1e-7a3c"), idgen::kNoControl);
    EXPECT_EQ(control_at("POST /v1/orders?x=\"1\"\\"), idgen::kNoControl);
    EXPECT_EQ(control_at("caf\xc3\xa9 \xc2\xa0 \xe2\x80\xa8 \xf0\x9f\x98\x80"),
              idgen::kNoControl);  // é, NBSP, U+2028, emoji
    EXPECT_EQ(control_at("a\nb"), 1u);
    EXPECT_EQ(control_at(std::string("ab\0c", 4)), 2u);
    EXPECT_EQ(control_at("\t"), 0u);
    EXPECT_EQ(control_at("x\x7f"), 1u);
    EXPECT_EQ(control_at("x\x1f"), 1u);
    // C1 controls (U+0080..U+009F) in UTF-8; in another encoding those bytes are characters.
    EXPECT_EQ(control_at("ab\xc2\x85"), 2u);
    EXPECT_EQ(control_at("ab\xc2\x9f"), 2u);
    EXPECT_EQ(control_at("ab\xc2\x85", false), idgen::kNoControl);
    EXPECT_EQ(control_at("\xc3\x85"), idgen::kNoControl);  // Å: same second byte, not a control
}

TEST(IdempotencyLabel, EscapedForMessages) {
    EXPECT_EQ(escaped("plain key"), "plain key");
    EXPECT_EQ(escaped("line\nbreak\r"), "line\\x0abreak\\x0d");
    EXPECT_EQ(escaped("nel\xc2\x85"), "nel\\u0085");
    EXPECT_EQ(escaped("say \"hi\" \\o/"), "say \\\"hi\\\" \\\\o/");
    EXPECT_EQ(escaped("caf\xc3\xa9"), "caf\xc3\xa9");
    EXPECT_EQ(escaped("\x7f"), "\\x7f");
    // A lead byte without its continuation bytes is one byte, and a control byte after it is
    // escaped, not copied as part of a character.
    EXPECT_EQ(escaped("\xc3\n"), "\xc3\\x0a");
    // Clipped with "...", never inside a character or an escape.
    EXPECT_EQ(escaped("abcdefghij", 8), "abcd...");
    EXPECT_EQ(escaped("abc\xc3\xa9xyz", 9), "abc\xc3\xa9...");
    EXPECT_EQ(escaped("abcd\xc3\xa9xyz", 8), "abcd...");
    EXPECT_EQ(escaped("ab\ncdef", 8), "ab...");
    EXPECT_EQ(escaped(std::string(300, 'k'), 300).size(), 299u);
}

TEST(IdempotencyPointer, Syntax) {
    for (const char* ok : {"", "/", "/a", "/a/b", "//", "/~0", "/~1", "/a~0b~1c", "/0/1/-", "/ space /é"}) {
        const std::string p(ok);
        EXPECT_TRUE(idgen::json_pointer_check(p.data(), p.size()).ok()) << p;
    }
    for (const char* bad : {"a", "a/b", " /a", "~0", "/~", "/a~", "/~2", "/~a", "/a~/b", "/~~0"}) {
        const std::string p(bad);
        const auto r = idgen::json_pointer_check(p.data(), p.size());
        EXPECT_FALSE(r.ok()) << p;
        EXPECT_EQ(r.error(), Error::kInvalidSyntax) << p;
    }
    EXPECT_EQ(*idgen::json_pointer_check("", 0), 0u);
    EXPECT_EQ(*idgen::json_pointer_check("/", 1), 1u);
    EXPECT_EQ(*idgen::json_pointer_check("/a/b~1c//", 9), 4u);
}

TEST(IdempotencyPointer, Tokens) {
    EXPECT_EQ(tokens(""), std::vector<std::string>{});
    EXPECT_EQ(tokens("/"), std::vector<std::string>{""});
    EXPECT_EQ(tokens("/a~1b/~0c//d"), (std::vector<std::string>{"a/b", "~c", "", "d"}));
    // RFC 6901: "~01" is "~1" and "~10" is "/0" (each escape read once, left to right).
    EXPECT_EQ(tokens("/~01"), std::vector<std::string>{"~1"});
    EXPECT_EQ(tokens("/~10"), std::vector<std::string>{"/0"});
    EXPECT_EQ(tokens("/items/0/sku"), (std::vector<std::string>{"items", "0", "sku"}));
}

TEST(IdempotencyPointer, ArrayIndex) {
    const auto idx = [](const std::string& t) { return idgen::json_pointer_index(t.data(), t.size()); };
    EXPECT_EQ(*idx("0"), 0u);
    EXPECT_EQ(*idx("7"), 7u);
    EXPECT_EQ(*idx("1234"), 1234u);
    EXPECT_EQ(*idx("2147483647"), 2147483647u);
    for (const char* bad : {"", "01", "00", "-1", "+1", "1a", " 1", "-", "0x1"})
        EXPECT_EQ(idx(bad).error(), Error::kInvalidSyntax) << bad;
    EXPECT_EQ(idx("2147483648").error(), Error::kOutOfRange);
    EXPECT_EQ(idx("99999999999999999999999").error(), Error::kOutOfRange);
}
