// id_gen C++ library: ObjectId over src/core/types/objectid (the code gen_objectid() runs).
#include "id_gen/objectid.hpp"

#include <cstring>
#include <mutex>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/objectid.h"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kType = "objectid";

ObjectId wrap(const idgen::ObjectId& c) noexcept {
    Bytes12 b;
    std::memcpy(b.data(), c.bytes, 12);
    return ObjectId(b);
}

idgen::ObjectId core(const ObjectId& o) noexcept {
    idgen::ObjectId c{};
    std::memcpy(c.bytes, o.bytes().data(), 12);
    return c;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
    std::int64_t q = a / b;
    if ((a % b) != 0 && a < 0) --q;
    return q;
}

}  // namespace

ObjectId ObjectId::parse(std::string_view text) {
    return wrap(detail::value_or_throw(idgen::objectid_parse(text.data(), text.size()), kType, text));
}

std::optional<ObjectId> ObjectId::try_parse(std::string_view text) noexcept {
    auto r = idgen::objectid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

ObjectId ObjectId::lower(sys_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    return wrap(detail::value_or_throw(idgen::objectid_lower(s), kType, detail::describe_ms(s * 1000)));
}

ObjectId ObjectId::upper(sys_seconds t) {
    const std::int64_t s = t.time_since_epoch().count();
    return wrap(detail::value_or_throw(idgen::objectid_upper(s), kType, detail::describe_ms(s * 1000)));
}

std::string ObjectId::to_string() const {
    char buf[text_size];
    idgen::objectid_format(core(*this), buf);
    return std::string(buf, text_size);
}

std::uint32_t ObjectId::unix_seconds() const noexcept { return idgen::objectid_seconds(core(*this)); }

struct ObjectIdGenerator::State {
    std::mutex mu;
    std::function<std::int64_t()> clock;
    idgen::ObjectIdGenerator gen;
    idgen::EntropyPool pool;
};

ObjectIdGenerator::ObjectIdGenerator(std::function<std::int64_t()> clock) : s_(std::make_unique<State>()) {
    s_->clock = std::move(clock);
}

ObjectIdGenerator::~ObjectIdGenerator() = default;

ObjectId ObjectIdGenerator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    // The process id is cached and refreshed after fork() (objectid_process_id): in a child the
    // pool drops its block and the core generator redraws its random value and counter.
    const int pid = idgen::objectid_process_id();
    s_->pool.set_owner(pid);
    const std::int64_t s = floor_div(s_->clock ? s_->clock() : idgen::unix_time_ns(), 1000000000);
    auto id = s_->gen.next(s, pid, s_->pool);
    if (!id) detail::throw_core_error(id.error(), kType, detail::describe_ms(s * 1000));
    return wrap(*id);
}

ObjectId ObjectIdGenerator::at(sys_seconds t) {
    std::lock_guard<std::mutex> lock(s_->mu);
    const int pid = idgen::objectid_process_id();
    s_->pool.set_owner(pid);
    const std::int64_t s = t.time_since_epoch().count();
    auto id = s_->gen.at(s, pid, s_->pool);
    if (!id) detail::throw_core_error(id.error(), kType, detail::describe_ms(s * 1000));
    return wrap(*id);
}

ObjectId new_objectid() {
    static ObjectIdGenerator g;
    return g.next();
}

}  // namespace id_gen
