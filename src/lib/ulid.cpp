// id_gen C++ library: ULIDs, their text and their generator over src/core (the code gen_ulid() runs).
#include <cstring>
#include <mutex>
#include <ostream>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/ulid.h"
#include "core/types/uuidv7.h"
#include "id_gen/ulid.hpp"
#include "support.h"

namespace id_gen {
namespace {

idgen::Ulid core(const Ulid& u) noexcept {
    idgen::Ulid c{};
    std::memcpy(c.bytes, u.bytes().data(), 16);
    return c;
}
Ulid wrap(const idgen::Ulid& c) noexcept {
    Bytes16 b;
    std::memcpy(b.data(), c.bytes, 16);
    return Ulid(b);
}

std::int64_t ms_of(sys_milliseconds t) noexcept { return t.time_since_epoch().count(); }

// A time point as the SQL functions show it in their errors.
std::string time_text(sys_milliseconds t) { return detail::describe_ms(ms_of(t)); }

constexpr const char* kUlid = "ulid";

}  // namespace

using detail::floor_div;
using detail::fork_generation;
using detail::read_ns;
using detail::throw_core_error;
using detail::value_or_throw;
using detail::watch_forks;

// ---- Ulid ----------------------------------------------------------------------------------

Ulid Ulid::parse(std::string_view text) {
    return wrap(value_or_throw(idgen::ulid_parse(text.data(), text.size()), kUlid, text));
}

std::optional<Ulid> Ulid::try_parse(std::string_view text) noexcept {
    auto r = idgen::ulid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

Ulid Ulid::lower(sys_milliseconds t) { return wrap(value_or_throw(idgen::ulid_lower(ms_of(t)), kUlid, time_text(t))); }
Ulid Ulid::upper(sys_milliseconds t) { return wrap(value_or_throw(idgen::ulid_upper(ms_of(t)), kUlid, time_text(t))); }

Ulid Ulid::random_at(sys_milliseconds t) {
    // A one-off draw: straight from the kernel, no pool kept.
    struct Kernel final : idgen::ByteSource {
        bool fill(std::uint8_t* out, std::size_t n) noexcept override { return idgen::os_random(out, n); }
    } kernel;
    return wrap(value_or_throw(idgen::ulid_at(ms_of(t), kernel), kUlid, time_text(t)));
}

std::string Ulid::to_string() const {
    std::string s(text_size, '\0');
    write(s.data());
    return s;
}

char* Ulid::write(char* out) const noexcept {
    idgen::ulid_format(core(*this), out);
    return out + text_size;
}

std::int64_t Ulid::unix_ms() const noexcept { return idgen::ulid_time_ms(core(*this)); }

namespace crockford32 {

std::string encode(const Bytes16& bytes) { return Ulid(bytes).to_string(); }
Bytes16 decode(std::string_view text) { return Ulid::parse(text).bytes(); }

}  // namespace crockford32

// ---- ULID ----------------------------------------------------------------------------------

struct UlidGenerator::State {
    std::mutex mu;
    Clock clock;
    idgen::UlidGenerator gen;
    idgen::EntropyPool pool;
    std::uint64_t fork_gen = 0;
};

UlidGenerator::UlidGenerator() : UlidGenerator(Clock{}) {}

UlidGenerator::UlidGenerator(Clock clock) : s_(std::make_unique<State>()) {
    watch_forks();
    s_->clock = std::move(clock);
    s_->fork_gen = fork_generation();
    s_->pool.set_owner(static_cast<int>(s_->fork_gen));
}

UlidGenerator::~UlidGenerator() = default;

Ulid UlidGenerator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    const std::uint64_t fg = fork_generation();
    if (fg != s_->fork_gen) {
        // In a child: the parent continues from the same last ID, so start over with fresh bits.
        s_->gen = idgen::UlidGenerator{};
        s_->fork_gen = fg;
        s_->pool.set_owner(static_cast<int>(fg));
    }
    const std::int64_t ms = floor_div(read_ns(s_->clock), idgen::kNsPerMs);
    auto id = s_->gen.next(ms, s_->pool);
    if (!id) detail::throw_core_error(id.error(), "ulid", detail::describe_ms(ms));
    return wrap(*id);
}

// Never destroyed: a thread may still call it while static objects are being torn down.
Ulid new_ulid() {
    static UlidGenerator* const g = new UlidGenerator();
    return g->next();
}

std::ostream& operator<<(std::ostream& os, const Ulid& id) { return os << id.to_string(); }

}  // namespace id_gen
