// id_gen C++ library: NanoIDs over src/core (the code gen_nanoid() runs).
#include <cstring>
#include <mutex>

#include "core/base/entropy.h"
#include "core/types/nanoid.h"
#include "core/types/objectid.h"
#include "id_gen/nanoid.hpp"
#include "support.h"

namespace id_gen {
namespace {

// The calling process's id, cached and refreshed after fork(): a pool owned by another process
// (one inherited across fork()) drops its block before use.
int process_id() noexcept { return idgen::objectid_process_id(); }

}  // namespace

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
        detail::throw_error(errc::invalid_argument,
                            "NanoID size " + std::to_string(size) + " is out of range (1 to 255)");
}
}  // namespace

NanoidGenerator::NanoidGenerator(std::string_view alphabet, std::size_t size) : s_(std::make_unique<State>()) {
    check_size(size);
    s_->size = size;
    switch (idgen::nanoid_alphabet(alphabet.data(), alphabet.size(), true, s_->alphabet)) {
        case idgen::NanoidAlphabetCheck::kValid: return;
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
