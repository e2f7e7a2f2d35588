// The core's table of error codes, SQLSTATEs and messages (core/base/errors.h), which the
// extension raises from and the library throws from: complete, well formed, and its message
// filling and value clipping.
#include "core/base/errors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

namespace {

using idgen::Error;

std::string message(Error e, const char* type, const std::string& value) {
    char buf[1024];
    const std::size_t n = idgen::error_message(e, type, value.data(), value.size(), buf, sizeof buf);
    EXPECT_EQ(n, std::strlen(buf));
    return buf;
}

}  // namespace

TEST(ErrorTable, EveryCodeHasOneWellFormedEntry) {
    EXPECT_EQ(idgen::error_text(Error::kOk), nullptr);
    EXPECT_EQ(idgen::error_text(static_cast<Error>(idgen::kErrorCodeCount + 1)), nullptr);
    std::set<int> seen;
    for (int i = 1; i <= idgen::kErrorCodeCount; ++i) {
        const auto e = static_cast<Error>(i);
        const idgen::ErrorText* t = idgen::error_text(e);
        ASSERT_NE(t, nullptr) << i;
        EXPECT_EQ(t->code, e);
        ASSERT_EQ(std::strlen(t->sqlstate), 5u) << i;
        for (const char* p = t->sqlstate; *p; ++p)
            EXPECT_TRUE((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z')) << i;
        const std::string m = t->message;
        EXPECT_EQ(m.find("{type}", m.find("{type}") + 1), std::string::npos) << m;
        EXPECT_EQ(m.find("{value}", m.find("{value}") + 1), std::string::npos) << m;
        // Only input errors are soft: an ID that could not be issued is never a NULL.
        if (t->soft) {
            EXPECT_TRUE(t->sqlstate[0] == '2' && t->sqlstate[1] == '2') << i;
        }
        seen.insert(i);
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(idgen::kErrorCodeCount));
}

TEST(ErrorTable, MessagesNameTheTypeAndTheValue) {
    EXPECT_EQ(message(Error::kInvalidSyntax, "ulid", "x"), "invalid input syntax for type ulid: \"x\"");
    EXPECT_EQ(message(Error::kOutOfRange, "snowflake", "0"), "value \"0\" is out of range for type snowflake");
    EXPECT_EQ(message(Error::kLayoutExhausted, "shard ID", "why"), "cannot issue another shard ID: why");
    EXPECT_EQ(message(Error::kEntropyFailure, "uuid", "ignored"),
              "could not read random bytes from the kernel for type uuid");
    EXPECT_EQ(message(static_cast<Error>(200), "ulid", "x"), "id_gen: unknown error code 200");
    // A short buffer: cut and terminated, the whole length returned.
    char small[8];
    const std::size_t n = idgen::error_message(Error::kInvalidPrefix, "t", "abc", 3, small, sizeof small);
    EXPECT_EQ(n, std::strlen("invalid prefix \"abc\""));
    EXPECT_STREQ(small, "invalid");
}

TEST(ErrorTable, LongValuesAreClippedAtACharacterBoundary) {
    char shown[idgen::kShownValueCap];
    const std::string short_value(idgen::kShownValueCap - 1, 'a');
    EXPECT_EQ(idgen::clip_shown_value(short_value.data(), short_value.size(), shown, idgen::utf8_clip_length),
              short_value.size());
    EXPECT_EQ(std::string(shown), short_value);
    // 251 ASCII bytes, then two-byte characters: the cut at 252 would split one.
    std::string v(251, 'b');
    for (int i = 0; i < 10; ++i) v += "\xc3\xa9";
    const std::size_t n = idgen::clip_shown_value(v.data(), v.size(), shown, idgen::utf8_clip_length);
    EXPECT_EQ(std::string(shown), std::string(251, 'b') + "...");
    EXPECT_EQ(n, 254u);
    const std::string ascii(1000, 'c');
    idgen::clip_shown_value(ascii.data(), ascii.size(), shown, idgen::utf8_clip_length);
    EXPECT_EQ(std::string(shown), std::string(idgen::kShownValueCap - 4, 'c') + "...");
}
