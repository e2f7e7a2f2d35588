// id_gen C++ library: UUIDs, their text and the UUIDv7 generator over src/core (the code gen_uuidv7() runs).
#include <cstring>
#include <mutex>
#include <ostream>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/text/uuid_text.h"
#include "core/types/uuidv6.h"
#include "core/types/uuidv7.h"
#include "id_gen/uuid.hpp"
#include "support.h"

namespace id_gen {
namespace {

idgen::Uuid core(const Uuid& u) noexcept {
    idgen::Uuid c{};
    std::memcpy(c.bytes, u.bytes().data(), 16);
    return c;
}
Uuid wrap(const idgen::Uuid& c) noexcept {
    Bytes16 b;
    std::memcpy(b.data(), c.bytes, 16);
    return Uuid(b);
}

std::int64_t ms_of(sys_milliseconds t) noexcept { return t.time_since_epoch().count(); }

// A time point as the SQL functions show it in their errors.
std::string time_text(sys_milliseconds t) { return detail::describe_ms(ms_of(t)); }

constexpr const char* kUuid = "uuid";

}  // namespace

using detail::floor_div;
using detail::fork_generation;
using detail::read_ns;
using detail::throw_core_error;
using detail::value_or_throw;
using detail::watch_forks;

// ---- Uuid ----------------------------------------------------------------------------------

Uuid Uuid::parse(std::string_view text) {
    return wrap(value_or_throw(idgen::uuid_parse(text.data(), text.size()), kUuid, text));
}

std::optional<Uuid> Uuid::try_parse(std::string_view text) noexcept {
    auto r = idgen::uuid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

Uuid Uuid::v7_lower(sys_milliseconds t) {
    return wrap(value_or_throw(idgen::uuidv7_lower(ms_of(t)), kUuid, time_text(t)));
}
Uuid Uuid::v7_upper(sys_milliseconds t) {
    return wrap(value_or_throw(idgen::uuidv7_upper(ms_of(t)), kUuid, time_text(t)));
}

std::string Uuid::to_string() const {
    std::string s(text_size, '\0');
    write(s.data());
    return s;
}

char* Uuid::write(char* out) const noexcept {
    idgen::uuid_format(core(*this), out);
    return out + text_size;
}

int Uuid::version() const noexcept { return idgen::uuid_version(core(*this)); }

std::optional<sys_microseconds> Uuid::time() const noexcept {
    const idgen::UuidTime t = idgen::uuid_time_v167(core(*this));
    if (!t.present) return std::nullopt;
    return sys_microseconds(std::chrono::microseconds(t.unix_us));
}

std::optional<sys_microseconds> Uuid::v7_time_precise() const noexcept {
    const idgen::UuidTime t = idgen::uuidv7_time_precise(core(*this));
    if (!t.present) return std::nullopt;
    return sys_microseconds(std::chrono::microseconds(t.unix_us));
}

// ---- UUIDv7 --------------------------------------------------------------------------------

struct Uuidv7Generator::State {
    std::mutex mu;
    Clock clock;
    idgen::Uuidv7Generator gen;
    idgen::EntropyPool pool;
    std::uint64_t fork_gen = 0;
};

Uuidv7Generator::Uuidv7Generator() : Uuidv7Generator(Clock{}) {}

Uuidv7Generator::Uuidv7Generator(Clock clock) : s_(std::make_unique<State>()) {
    watch_forks();
    s_->clock = std::move(clock);
    s_->fork_gen = fork_generation();
    s_->pool.set_owner(static_cast<int>(s_->fork_gen));
}

Uuidv7Generator::~Uuidv7Generator() = default;

Uuid Uuidv7Generator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    const std::uint64_t fg = fork_generation();
    if (fg != s_->fork_gen) {
        // The time discipline may continue in the child; the random block must not.
        s_->fork_gen = fg;
        s_->pool.set_owner(static_cast<int>(fg));
    }
    auto id = s_->gen.next(read_ns(s_->clock), s_->pool);
    if (!id) detail::throw_core_error(id.error(), "uuid", "the clock is past the year 2262");
    return wrap(*id);
}

// Never destroyed: a thread may still call it while static objects are being torn down.
Uuid new_uuidv7() {
    static Uuidv7Generator* const g = new Uuidv7Generator();
    return g->next();
}

std::ostream& operator<<(std::ostream& os, const Uuid& id) { return os << id.to_string(); }

}  // namespace id_gen
