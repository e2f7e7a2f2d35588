// id_gen C++ library: KSUIDs and their generator over src/core (the code gen_ksuid() runs).
#include <cstring>
#include <mutex>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/ksuid.h"
#include "id_gen/ksuid.hpp"
#include "support.h"

namespace id_gen {
namespace {

using detail::throw_core_error;
using detail::value_or_throw;

constexpr const char* kKsuid = "ksuid";

// The library's fork tracking (support.h): state drawn for another process is dropped.
using detail::watch_forks;
std::uint64_t forks() noexcept { return detail::fork_generation(); }

struct Kernel final : idgen::ByteSource {
    bool fill(std::uint8_t* out, std::size_t n) noexcept override { return idgen::os_random(out, n); }
};

std::int64_t floor_seconds(std::int64_t ns) noexcept {
    std::int64_t s = ns / 1000000000;
    if (ns % 1000000000 < 0) --s;
    return s;
}

std::string time_text(std::int64_t s) { return detail::describe_ms(s * 1000); }

idgen::Ksuid core(const Ksuid& k) noexcept {
    idgen::Ksuid c{};
    std::memcpy(c.bytes, k.bytes().data(), 20);
    return c;
}
Ksuid wrap(const idgen::Ksuid& c) noexcept {
    Bytes20 b;
    std::memcpy(b.data(), c.bytes, 20);
    return Ksuid(b);
}

std::size_t fnv1a(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return static_cast<std::size_t>(h);
}

}  // namespace

// ---- Ksuid ---------------------------------------------------------------------------------

Ksuid Ksuid::parse(std::string_view text) {
    return wrap(value_or_throw(idgen::ksuid_parse(text.data(), text.size()), kKsuid, text));
}

std::optional<Ksuid> Ksuid::try_parse(std::string_view text) noexcept {
    auto r = idgen::ksuid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

Ksuid Ksuid::lower(sys_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    return wrap(value_or_throw(idgen::ksuid_lower(s), kKsuid, time_text(s)));
}

Ksuid Ksuid::upper(sys_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    return wrap(value_or_throw(idgen::ksuid_upper(s), kKsuid, time_text(s)));
}

Ksuid Ksuid::random_at(sys_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    Kernel kernel;
    return wrap(value_or_throw(idgen::ksuid_at(s, kernel), kKsuid, time_text(s)));
}

std::string Ksuid::to_string() const {
    std::string s(text_size, '\0');
    write(s.data());
    return s;
}

char* Ksuid::write(char* out) const noexcept {
    idgen::ksuid_format(core(*this), out);
    return out + text_size;
}

std::int64_t Ksuid::unix_seconds() const noexcept { return idgen::ksuid_unix_seconds(core(*this)); }

std::array<std::uint8_t, 16> Ksuid::payload() const noexcept {
    std::array<std::uint8_t, 16> p;
    std::memcpy(p.data(), bytes_.data() + 4, 16);
    return p;
}

struct KsuidGenerator::State {
    std::mutex mu;
    Clock clock;
    idgen::KsuidGenerator gen;
    idgen::EntropyPool pool;
    std::uint64_t fork_gen = 0;
};

KsuidGenerator::KsuidGenerator() : KsuidGenerator(Clock{}) {}

KsuidGenerator::KsuidGenerator(Clock clock) : s_(std::make_unique<State>()) {
    watch_forks();
    s_->clock = std::move(clock);
    s_->fork_gen = forks();
    s_->pool.set_owner(static_cast<int>(s_->fork_gen));
}

KsuidGenerator::~KsuidGenerator() = default;

Ksuid KsuidGenerator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    const std::uint64_t fg = forks();
    if (fg != s_->fork_gen) {
        // In a child: the parent continues from the same last ID, so start over with fresh bits.
        s_->gen = idgen::KsuidGenerator{};
        s_->fork_gen = fg;
        s_->pool.set_owner(static_cast<int>(fg));
    }
    const std::int64_t s = floor_seconds(s_->clock ? s_->clock() : idgen::unix_time_ns());
    auto id = s_->gen.next(s, s_->pool);
    if (!id) throw_core_error(id.error(), kKsuid, time_text(s));
    return wrap(*id);
}

}  // namespace id_gen

std::size_t std::hash<id_gen::Ksuid>::operator()(const id_gen::Ksuid& k) const noexcept {
    return id_gen::fnv1a(k.bytes().data(), 20);
}
