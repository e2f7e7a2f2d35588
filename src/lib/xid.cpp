// id_gen C++ library: xids (the rs/xid format) and their generator over src/core (the code gen_xid() runs).
#include <cstring>
#include <mutex>
#include <unistd.h>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/xid.h"
#include "id_gen/xid.hpp"
#include "support.h"

namespace id_gen {
namespace {

using detail::throw_core_error;
using detail::value_or_throw;

constexpr const char* kXid = "rsxid";

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

idgen::Xid core(const Xid& x) noexcept {
    idgen::Xid c{};
    std::memcpy(c.bytes, x.bytes().data(), 12);
    return c;
}
Xid wrap(const idgen::Xid& c) noexcept {
    Bytes12 b;
    std::memcpy(b.data(), c.bytes, 12);
    return Xid(b);
}

std::size_t fnv1a(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return static_cast<std::size_t>(h);
}

}  // namespace

// ---- Xid -----------------------------------------------------------------------------------

Xid Xid::parse(std::string_view text) {
    return wrap(value_or_throw(idgen::xid_parse(text.data(), text.size()), kXid, text));
}

std::optional<Xid> Xid::try_parse(std::string_view text) noexcept {
    auto r = idgen::xid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

Xid Xid::lower(xid_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    return wrap(value_or_throw(idgen::xid_lower(s), kXid, time_text(s)));
}

Xid Xid::upper(xid_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    return wrap(value_or_throw(idgen::xid_upper(s), kXid, time_text(s)));
}

std::string Xid::to_string() const {
    std::string s(text_size, '\0');
    write(s.data());
    return s;
}

char* Xid::write(char* out) const noexcept {
    idgen::xid_format(core(*this), out);
    return out + text_size;
}

std::int64_t Xid::unix_seconds() const noexcept { return idgen::xid_seconds(core(*this)); }
std::uint32_t Xid::machine() const noexcept { return idgen::xid_machine(core(*this)); }
std::uint16_t Xid::pid() const noexcept { return idgen::xid_pid(core(*this)); }
std::uint32_t Xid::counter() const noexcept { return idgen::xid_counter(core(*this)); }

struct XidGenerator::State {
    std::mutex mu;
    Clock clock;
    std::uint32_t machine = 0;
    idgen::XidGenerator gen;
    std::uint64_t fork_gen = 0;
    int pid = 0;
};

XidGenerator::XidGenerator(std::uint32_t machine) : XidGenerator(machine, Clock{}) {}

XidGenerator::XidGenerator(std::uint32_t machine, Clock clock) : s_(std::make_unique<State>()) {
    if (machine > 0xFFFFFFu)
        detail::throw_error(errc::invalid_argument,
                            "xid machine ID " + std::to_string(machine) + " does not fit 3 bytes");
    watch_forks();
    s_->clock = std::move(clock);
    s_->machine = machine;
    s_->fork_gen = forks();
    s_->pid = static_cast<int>(getpid());
}

XidGenerator::~XidGenerator() = default;

Xid XidGenerator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    const std::uint64_t fg = forks();
    if (fg != s_->fork_gen) {
        // A child: its own pid, and (the core generator keys its counter by pid) a new counter start.
        s_->fork_gen = fg;
        s_->pid = static_cast<int>(getpid());
    }
    const std::int64_t s = floor_seconds(s_->clock ? s_->clock() : idgen::unix_time_ns());
    Kernel kernel;  // the counter start only: 3 bytes once per process
    auto id = s_->gen.next(s, s_->machine, s_->pid, kernel);
    if (!id) throw_core_error(id.error(), kXid, time_text(s));
    return wrap(*id);
}

std::uint32_t XidGenerator::machine() const noexcept { return s_->machine; }

std::uint32_t XidGenerator::machine_from_system_identifier(std::uint64_t system_identifier) noexcept {
    return idgen::xid_machine_from_system_id(system_identifier);
}

}  // namespace id_gen

std::size_t std::hash<id_gen::Xid>::operator()(const id_gen::Xid& x) const noexcept {
    return id_gen::fnv1a(x.bytes().data(), 12);
}
