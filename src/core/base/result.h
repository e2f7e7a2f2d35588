// id_gen core: error codes and the Result type every parser and generator returns.
//
// The core never throws and never includes a PostgreSQL header. A function that can fail
// returns Result<T>: a value, or an Error that src/pg/base/errors.cpp maps to a SQLSTATE.
#pragma once

#include <cstdint>
#include <type_traits>

namespace idgen {

enum class Error : std::uint8_t {
    kOk = 0,
    kInvalidSyntax,     // malformed text: 22P02
    kOutOfRange,        // well-formed but does not fit: 22003
    kTimeOutOfRange,    // a timestamp outside what the format can hold: 22003
    kEntropyFailure,    // the kernel CSPRNG could not be read: 58000 (system error)
    kCapacityExceeded,  // a generator cannot issue another ID without reissuing one: 54000
    kInvalidPrefix,     // a prefixed-ID prefix that breaks the naming rule: 22023
    kWrongPrefix,       // prefixed text whose prefix is not the expected one: 22P02
    kLayoutExhausted,   // a generator's time field is used up (no later ID fits): 22003
    kStateIoError,      // a generator's persisted state could not be read or written (or fsync'd): 58030
    kStateDamaged,      // a generator's state file fails its magic, version, length or checksum: XX001
    kStateLockTimeout,  // a generator's state lock was not granted in time: 55P03
    kNoOutcome,         // internal: a computation ended without a value or an error: XX000
};

template <class T>
class [[nodiscard]] Result {
    static_assert(std::is_trivially_destructible_v<T>,
                  "Result values cross ereport: they must be trivially destructible");

public:
    constexpr Result(T value) noexcept : value_(value), error_(Error::kOk) {}  // NOLINT(google-explicit-constructor)
    // An error. Error::kOk is not an outcome: it becomes kNoOutcome, so a path that forgot to set
    // an error can never be read as a value (0.1.0 issued the ID 0 that way).
    constexpr Result(Error error) noexcept  // NOLINT(google-explicit-constructor)
        : value_(), error_(error == Error::kOk ? Error::kNoOutcome : error) {}

    [[nodiscard]] constexpr bool ok() const noexcept { return error_ == Error::kOk; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    [[nodiscard]] constexpr Error error() const noexcept { return error_; }
    [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
    constexpr const T& operator*() const noexcept { return value_; }
    constexpr const T* operator->() const noexcept { return &value_; }

private:
    T value_;
    Error error_;
};

}  // namespace idgen
