// id_gen C++ library: the one exception type.
//
// Functions that parse text or issue IDs throw id_gen::error. Its code says what went wrong and
// sqlstate() gives the SQLSTATE the extension raises for the same condition, so an application
// can treat a bad ID from a request the same way whether it was rejected in C++ or in SQL. The
// try_parse functions return an empty std::optional instead of throwing.
#pragma once

#include <stdexcept>
#include <string>

namespace id_gen {

enum class errc : int {
    invalid_syntax = 1,  // malformed text                                   22P02
    out_of_range,        // well-formed, but the value does not fit           22003
    time_out_of_range,   // a time the format cannot hold                     22003
    invalid_prefix,      // a prefix that breaks the naming rule              22023
    wrong_prefix,        // prefixed text with another prefix than expected   22P02
    invalid_argument,    // a node number or layout that does not fit         22023
    capacity_exceeded,   // a generator cannot issue without waiting too long 54000
    entropy_failure,     // the kernel CSPRNG could not be read               58000
    forked,              // a snowflake generator used after fork()           55000
};

class error : public std::runtime_error {
public:
    error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}

    [[nodiscard]] errc code() const noexcept { return code_; }
    // Five characters, e.g. "22P02".
    [[nodiscard]] const char* sqlstate() const noexcept { return sqlstate_of(code_); }

    [[nodiscard]] static constexpr const char* sqlstate_of(errc code) noexcept {
        switch (code) {
            case errc::invalid_syntax:
            case errc::wrong_prefix: return "22P02";
            case errc::out_of_range:
            case errc::time_out_of_range: return "22003";
            case errc::invalid_prefix:
            case errc::invalid_argument: return "22023";
            case errc::capacity_exceeded: return "54000";
            case errc::entropy_failure: return "58000";
            case errc::forked: return "55000";
        }
        return "XX000";
    }

private:
    errc code_;
};

}  // namespace id_gen
