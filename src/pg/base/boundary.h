// id_gen: the one boundary between PostgreSQL and the C++ core.
//
// THE RULE. No C++ exception may cross an extern "C" frame, and no ereport() may longjmp over a
// live C++ object with a non-trivial destructor. Therefore:
//
//   * Every SQL-callable function is defined with IDGEN_FUNCTION(name) { ... }. The macro emits
//     PG_FUNCTION_INFO_V1 and an extern "C" wrapper that runs the body inside try/catch; a core
//     error or a caught exception is recorded in a trivially destructible Failure and raised with
//     ereport only after the catch block has closed.
//   * A body has one shape: (1) a prologue that makes every PostgreSQL call that can raise
//     (argument fetch, detoast, palloc, catalog access), with only trivially destructible locals;
//     (2) a noexcept core call that returns plain data or an idgen::Error; (3) the result, or
//     `return failure.fail(error, type, value)`.
//   * No PG_TRY in C++ code. Nothing that can raise runs while a spinlock is held.
//
// Headers: standard and core headers first, then PostgreSQL's inside one extern "C" block
// (port.h redefines printf-family names as macros). compat.h smooths over the differences between
// server versions, so the glue reads the same on each.
#pragma once

#include <cstddef>
#include <exception>
#include <type_traits>

#include "core/base/errors.h"
#include "core/base/result.h"

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "pg/base/compat.h"
}

namespace idgen::pg {

// What an entry point wants raised. It survives ereport, so it must stay trivially destructible.
struct Failure {
    Error code = Error::kOk;
    bool exception = false;
    const char* type_name = nullptr;  // a string literal
    char value[kShownValueCap];       // the offending input, NUL-terminated, maybe clipped
    char what[kShownValueCap];        // message of a caught C++ exception

    // Records a core error; the wrapper raises it. Returns the Datum the body should return.
    // `offending` is NUL-terminated, or `len` bytes long; over-long input is cut at a character
    // boundary.
    Datum fail(Error e, const char* type, const char* offending) noexcept;
    Datum fail(Error e, const char* type, const char* offending, std::size_t len) noexcept;
    void set_exception(const char* message) noexcept;
    [[nodiscard]] bool raised() const noexcept { return exception || code != Error::kOk; }
};
static_assert(std::is_trivially_destructible_v<Failure>);

// Raises `f` as a PostgreSQL error (errors.cpp holds the whole mapping). With a soft-error
// context (input functions on PostgreSQL 16+) the error is saved there and this returns.
void raise_failure(const Failure& f, fmNodePtr escontext);

}  // namespace idgen::pg

#define IDGEN_FUNCTION(name)                                                             \
    static Datum name##_body(FunctionCallInfo fcinfo, ::idgen::pg::Failure& failure);    \
    extern "C" {                                                                         \
    PG_FUNCTION_INFO_V1(name);                                                           \
    }                                                                                    \
    extern "C" Datum name(PG_FUNCTION_ARGS) {                                            \
        ::idgen::pg::Failure failure;                                                    \
        Datum result = (Datum)0;                                                         \
        try {                                                                            \
            result = name##_body(fcinfo, failure);                                       \
        } catch (const std::exception& e) {                                              \
            failure.set_exception(e.what());                                             \
        } catch (...) {                                                                  \
            failure.set_exception(nullptr);                                              \
        }                                                                                \
        if (failure.raised()) {                                                          \
            ::idgen::pg::raise_failure(failure, fcinfo->context);                        \
            return (Datum)0; /* only reached when a soft-error context took the error */ \
        }                                                                                \
        return result;                                                                   \
    }                                                                                    \
    static Datum name##_body(FunctionCallInfo fcinfo, [[maybe_unused]] ::idgen::pg::Failure& failure)
