// id_gen: the helpers record_file.cpp shares with record_file_create.cpp (not for other files).
#pragma once

#include <cstddef>

#include "pg/state/record_file.h"

namespace idgen::pg::sfd {

inline constexpr const char* kLegacyDir = "pg_idgen";
inline constexpr const char* kDir = "pg_idgen/v2";

// Formats `fmt` (two %s: `path`, `what`) into the shared detail buffer and returns it.
const char* say(const char* fmt, const char* path, const char* what) noexcept;
// kStateIoError with "could not <verb> id_gen state file "<path>": <strerror(errno)>". False.
bool fail_errno(StateError& err, const char* verb, const char* path) noexcept;
// The path of `k`'s file under `dir`.
void key_name(const StateKey& k, const char* dir, char* out, std::size_t cap) noexcept;
// Closes a transient descriptor (errno kept).
void close_transient(int fd) noexcept;
// fsyncs directory `dir`; mkdir `dir` durably in `parent`.
bool fsync_dir(const char* dir) noexcept;
bool ensure_dir(const char* dir, const char* parent) noexcept;
// Locks `fd` exclusively, and `outer` with it (see wait_for_lock, OuterLock). May raise only while
// waiting, with nothing held.
bool lock_interruptible(int fd, const char* path, OuterLock* outer, StateError& err);
bool write_record_fd(int fd, const StateRecord& r) noexcept;

// Creates the v2 file of `k` when it does not exist (record_file_create.cpp).
bool create_state(const StateKey& k, const char* path, std::int64_t start_mark, OuterLock* outer, StateError& err);

}  // namespace idgen::pg::sfd
