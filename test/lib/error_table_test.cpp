// The library's errors against the core's table (core/base/errors.h), the one the extension
// raises from: for every core error the library can meet, id_gen::error's SQLSTATE and message
// are the table's; the others (generator state, internal) never reach the library.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/base/errors.h"
#include "id_gen/id_gen.hpp"
#include "lib/support.h"

namespace {

using idgen::Error;

std::string table_message(Error e, const char* type, const std::string& value) {
    char buf[1024];
    idgen::error_message(e, type, value.data(), value.size(), buf, sizeof buf);
    return buf;
}

}  // namespace

TEST(ErrorTable, LibraryThrowsTheTablesSqlstateAndText) {
    const std::set<Error> server_only = {Error::kStateIoError, Error::kStateDamaged, Error::kStateLockTimeout,
                                         Error::kNoOutcome};
    int compared = 0;
    for (int i = 1; i <= idgen::kErrorCodeCount; ++i) {
        const auto e = static_cast<Error>(i);
        const idgen::ErrorText* t = idgen::error_text(e);
        ASSERT_NE(t, nullptr);
        try {
            id_gen::detail::throw_core_error(e, "ulid", "some value");
        } catch (const id_gen::error& err) {
            if (server_only.count(e)) {
                EXPECT_EQ(err.code(), id_gen::errc::invalid_argument) << i;
                continue;
            }
            EXPECT_STREQ(err.sqlstate(), t->sqlstate) << i;
            EXPECT_EQ(std::string(err.what()), table_message(e, "ulid", "some value")) << i;
            ++compared;
        }
    }
    EXPECT_EQ(compared, idgen::kErrorCodeCount - static_cast<int>(server_only.size()));
}

TEST(ErrorTable, LibraryClipsLongValuesAsTheTableSays) {
    std::string v(251, 'b');
    for (int i = 0; i < 10; ++i) v += "\xc3\xa9";
    try {
        (void)id_gen::Ulid::parse(v);
        FAIL() << "accepted";
    } catch (const id_gen::error& err) {
        EXPECT_EQ(std::string(err.what()), table_message(Error::kInvalidSyntax, "ulid", std::string(251, 'b') + "..."));
    }
}
