// id_gen C++ library: UUIDv6 and NanoID over src/core (the code uuidv6() and gen_nanoid() run).
#include <cstring>
#include <mutex>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/nanoid.h"
#include "core/types/objectid.h"
#include "core/types/uuidv6.h"
#include "id_gen/nanoid.hpp"
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

// ---- NanoID --------------------------------------------------------------------------------

struct NanoidGenerator::State {
    std::mutex mu;
    idgen::NanoidAlphabet alphabet;
    std::size_t size;
    idgen::EntropyPool pool;
};

namespace {
void check_size(std::size_t size) {
    if (size < idgen::kNanoidMinSize || size > idgen::kNanoidMaxSize)
        detail::throw_error(errc::invalid_argument, "NanoID size " + std::to_string(size) + " is out of range (1 to 255)");
}
}  // namespace

NanoidGenerator::NanoidGenerator(std::string_view alphabet, std::size_t size) : s_(std::make_unique<State>()) {
    check_size(size);
    s_->size = size;
    switch (idgen::nanoid_alphabet(alphabet.data(), alphabet.size(), true, s_->alphabet)) {
        case idgen::NanoidAlphabetCheck::kValid:
            return;
        case idgen::NanoidAlphabetCheck::kRepeated:
            detail::throw_error(errc::invalid_argument, std::string("NanoID alphabet repeats the character \"") +
                                                            static_cast<char>(s_->alphabet.repeated) + "\"");
        case idgen::NanoidAlphabetCheck::kNul:
            detail::throw_error(errc::invalid_argument, "NanoID alphabet has a zero byte");
        default:
            detail::throw_error(errc::invalid_argument, "NanoID alphabet of " + std::to_string(alphabet.size()) +
                                                            " bytes: it must be 2 to 255 single-byte characters");
    }
}

NanoidGenerator::~NanoidGenerator() = default;

std::string NanoidGenerator::next() { return next(s_->size); }

std::string NanoidGenerator::next(std::size_t size) {
    check_size(size);
    std::string out(size, '\0');
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->pool.set_owner(process_id());
    const idgen::Error e = idgen::nanoid_generate(s_->alphabet, size, s_->pool, out.data());
    if (e != idgen::Error::kOk) detail::throw_core_error(e, "nanoid", "");
    return out;
}

std::string new_nanoid() {
    static NanoidGenerator g;
    return g.next();
}

}  // namespace id_gen
