// id_gen C++ library: UUIDv6 and its conversions from and to version 1 over src/core (the code uuidv6() runs).
#include <cstring>
#include <mutex>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/objectid.h"
#include "core/types/uuidv6.h"
#include "id_gen/uuidv6.hpp"
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

[[noreturn]] void wrong_version(const Uuid& id, int want) {
    const int v = id.version();
    detail::throw_error(errc::invalid_argument,
                        v < 0 ? "UUID \"" + id.to_string() + "\" is not an RFC 9562 UUID (its variant is not 0b10)"
                              : "UUID \"" + id.to_string() + "\" is version " + std::to_string(v) + ", not version " +
                                    std::to_string(want));
}

// The calling process's id, cached and refreshed after fork(): a pool owned by another process
// (one inherited across fork()) drops its block before use.
int process_id() noexcept { return idgen::objectid_process_id(); }

}  // namespace

// ---- UUIDv6 --------------------------------------------------------------------------------

Uuid uuid_v1_to_v6(const Uuid& v1) {
    const auto c = idgen::uuid_v1_to_v6(core(v1));
    if (!c.ok) wrong_version(v1, 1);
    return wrap(c.id);
}

Uuid uuid_v6_to_v1(const Uuid& v6) {
    const auto c = idgen::uuid_v6_to_v1(core(v6));
    if (!c.ok) wrong_version(v6, 6);
    return wrap(c.id);
}

struct Uuidv6Generator::State {
    std::mutex mu;
    Clock clock;
    idgen::Uuidv6Generator gen;
    idgen::EntropyPool pool;
};

Uuidv6Generator::Uuidv6Generator() : Uuidv6Generator(Clock{}) {}
Uuidv6Generator::Uuidv6Generator(Clock clock) : s_(std::make_unique<State>()) { s_->clock = std::move(clock); }
Uuidv6Generator::~Uuidv6Generator() = default;

Uuid Uuidv6Generator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->pool.set_owner(process_id());
    auto id = s_->gen.next(s_->clock ? s_->clock() : idgen::unix_time_ns(), s_->pool);
    if (!id) detail::throw_core_error(id.error(), "uuid", "the clock is outside 1582-10-15 .. 5236-03-31");
    return wrap(*id);
}

Uuid new_uuidv6() {
    static Uuidv6Generator g;
    return g.next();
}

}  // namespace id_gen
