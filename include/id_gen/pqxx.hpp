// id_gen C++ library: libpqxx conversions for every ID type.
//
//   #include <pqxx/pqxx>
//   #include <id_gen/pqxx.hpp>
//
//   tx.exec_params("INSERT INTO orders (id) VALUES ($1)", id);     // id: an id_gen::Ulid
//   auto id = row[0].as<id_gen::Ulid>();
//
// No ID type has a null value: reading a NULL throws pqxx::conversion_error. On libpqxx 7.x read
// a nullable column as std::optional<id_gen::Ulid>; Debian's libpqxx 6.4 is built without
// std::optional support, so check field.is_null() first there.
//
// Header-only: it needs libpqxx's headers and library, which the application links itself.
// Covered: libpqxx 6.4 (Debian 12) and libpqxx 7.x, told apart by PQXX_VERSION_MAJOR.
//
// Values go to the server as text parameters, the types' own text (libpqxx sends binary
// parameters only for bytea data), and results arrive as text: the server checks every value
// with its type's input function, so a parameter bound to a ulid column gets exactly the checks a
// literal would. A C++ type reads a column of the SQL type of the same name (see ids.hpp), or
// text in that form; a PrefixedId is text (prefixed_format() out, prefixed_parse() in). Text a
// type does not accept throws pqxx::conversion_error with the message of id_gen::error.
#pragma once

#include <pqxx/version>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/ids.hpp"
#include "id_gen/ksuid.hpp"
#include "id_gen/objectid.hpp"
#include "id_gen/shard_id.hpp"
#include "id_gen/trace_decimal.hpp"
#include "id_gen/xid.hpp"

namespace id_gen::pqxx_support {

// One ID type's text form: its longest text, how to write it, how to read it.
template <class T>
struct text_form;

template <>
struct text_form<Ulid> {
    static constexpr const char* name = "id_gen::Ulid";
    static constexpr std::size_t max_size = Ulid::text_size;
    static std::string write(const Ulid& v) { return v.to_string(); }
    static Ulid read(std::string_view s) { return Ulid::parse(s); }
};
template <>
struct text_form<Ksuid> {
    static constexpr const char* name = "id_gen::Ksuid";
    static constexpr std::size_t max_size = Ksuid::text_size;
    static std::string write(const Ksuid& v) { return v.to_string(); }
    static Ksuid read(std::string_view s) { return Ksuid::parse(s); }
};
template <>
struct text_form<Xid> {
    static constexpr const char* name = "id_gen::Xid";
    static constexpr std::size_t max_size = Xid::text_size;
    static std::string write(const Xid& v) { return v.to_string(); }
    static Xid read(std::string_view s) { return Xid::parse(s); }
};
template <>
struct text_form<Uuid> {
    static constexpr const char* name = "id_gen::Uuid";
    static constexpr std::size_t max_size = Uuid::text_size;
    static std::string write(const Uuid& v) { return v.to_string(); }
    static Uuid read(std::string_view s) { return Uuid::parse(s); }
};
template <>
struct text_form<Snowflake> {
    static constexpr const char* name = "id_gen::Snowflake";
    static constexpr std::size_t max_size = Snowflake::max_text_size;
    static std::string write(const Snowflake& v) { return v.to_string(); }
    static Snowflake read(std::string_view s) { return Snowflake::parse(s); }
};
template <>
struct text_form<Base36_64> {
    static constexpr const char* name = "id_gen::Base36_64";
    static constexpr std::size_t max_size = Base36_64::text_size;
    static std::string write(const Base36_64& v) { return v.to_string(); }
    static Base36_64 read(std::string_view s) { return Base36_64::parse(s); }
};
template <>
struct text_form<Base36_128> {
    static constexpr const char* name = "id_gen::Base36_128";
    static constexpr std::size_t max_size = Base36_128::text_size;
    static std::string write(const Base36_128& v) { return v.to_string(); }
    static Base36_128 read(std::string_view s) { return Base36_128::parse(s); }
};
template <>
struct text_form<Base62_64> {
    static constexpr const char* name = "id_gen::Base62_64";
    static constexpr std::size_t max_size = Base62_64::text_size;
    static std::string write(const Base62_64& v) { return v.to_string(); }
    static Base62_64 read(std::string_view s) { return Base62_64::parse(s); }
};
template <>
struct text_form<Base62_128> {
    static constexpr const char* name = "id_gen::Base62_128";
    static constexpr std::size_t max_size = Base62_128::text_size;
    static std::string write(const Base62_128& v) { return v.to_string(); }
    static Base62_128 read(std::string_view s) { return Base62_128::parse(s); }
};
// Written with its own body encoding; read as a base36 body (the default of SQL's prefixed_*
// functions). For base62 bodies read the text and call PrefixedId::parse(text, PrefixedBody::base62).
template <>
struct text_form<PrefixedId> {
    static constexpr const char* name = "id_gen::PrefixedId";
    static constexpr std::size_t max_size = PrefixedId::max_text_size;
    static std::string write(const PrefixedId& v) { return v.to_string(); }
    static PrefixedId read(std::string_view s) { return PrefixedId::parse(s); }
};

// ObjectId (SQL objectid), and the bigint IDs TraceId, DecimalId and ShardId: written as their text,
// read with their checks (a bigint that is not such an ID throws pqxx::conversion_error).
template <>
struct text_form<ObjectId> {
    static constexpr const char* name = "id_gen::ObjectId";
    static constexpr std::size_t max_size = ObjectId::text_size;
    static std::string write(const ObjectId& v) { return v.to_string(); }
    static ObjectId read(std::string_view s) { return ObjectId::parse(s); }
};
template <>
struct text_form<TraceId> {
    static constexpr const char* name = "id_gen::TraceId";
    static constexpr std::size_t max_size = TraceId::max_text_size;
    static std::string write(const TraceId& v) { return v.to_string(); }
    static TraceId read(std::string_view s) { return TraceId::parse(s); }
};
template <>
struct text_form<DecimalId> {
    static constexpr const char* name = "id_gen::DecimalId";
    static constexpr std::size_t max_size = DecimalId::max_text_size;
    static std::string write(const DecimalId& v) { return v.to_string(); }
    static DecimalId read(std::string_view s) { return DecimalId::parse(s); }
};
template <>
struct text_form<ShardId> {
    static constexpr const char* name = "id_gen::ShardId";
    static constexpr std::size_t max_size = ShardId::max_text_size;
    static std::string write(const ShardId& v) { return v.to_string(); }
    static ShardId read(std::string_view s) { return ShardId::parse(s); }
};

}  // namespace id_gen::pqxx_support

#if PQXX_VERSION_MAJOR >= 8
#error "id_gen/pqxx.hpp covers libpqxx 6.4 and 7.x; libpqxx 8 changed the conversion API"
#elif PQXX_VERSION_MAJOR == 7

#include <cstring>
#include <pqxx/strconv>
#include <pqxx/zview>

namespace id_gen::pqxx_support {

template <class T>
struct traits7 {
    static constexpr bool converts_to_string{true};
    static constexpr bool converts_from_string{true};

    static char* into_buf(char* begin, char* end, const T& value) {
        const std::string s = text_form<T>::write(value);
        if (end - begin < static_cast<std::ptrdiff_t>(s.size() + 1))
            throw pqxx::conversion_overrun(std::string("Buffer too small for ") + text_form<T>::name + ".");
        std::memcpy(begin, s.data(), s.size());
        begin[s.size()] = '\0';
        return begin + s.size() + 1;
    }
    static pqxx::zview to_buf(char* begin, char* end, const T& value) {
        char* past = into_buf(begin, end, value);
        return pqxx::zview(begin, static_cast<std::size_t>(past - begin - 1));
    }
    static T from_string(std::string_view text) {
        try {
            return text_form<T>::read(text);
        } catch (const id_gen::error& e) {
            throw pqxx::conversion_error(e.what());
        }
    }
    static std::size_t size_buffer(const T&) noexcept { return text_form<T>::max_size + 1; }
};

}  // namespace id_gen::pqxx_support

#define ID_GEN_PQXX_TRAITS(T)           \
    template <>                         \
    struct nullness<T> : no_null<T> {}; \
    template <>                         \
    struct string_traits<T> : id_gen::pqxx_support::traits7<T> {};

#else  // libpqxx 6

#include <pqxx/strconv>

namespace id_gen::pqxx_support {

template <class T>
struct traits6 {
    static constexpr const char* name() noexcept { return text_form<T>::name; }
    static constexpr bool has_null() noexcept { return false; }
    static bool is_null(const T&) { return false; }
    [[noreturn]] static T null() { pqxx::internal::throw_null_conversion(name()); }
    static void from_string(const char str[], T& obj) {
        try {
            obj = text_form<T>::read(str);
        } catch (const id_gen::error& e) {
            throw pqxx::conversion_error(e.what());
        }
    }
    static std::string to_string(const T& obj) { return text_form<T>::write(obj); }
};

}  // namespace id_gen::pqxx_support

#define ID_GEN_PQXX_TRAITS(T) \
    template <>               \
    struct string_traits<T> : id_gen::pqxx_support::traits6<T> {};

#endif

namespace pqxx {
ID_GEN_PQXX_TRAITS(id_gen::Ulid)
ID_GEN_PQXX_TRAITS(id_gen::Uuid)
ID_GEN_PQXX_TRAITS(id_gen::Snowflake)
ID_GEN_PQXX_TRAITS(id_gen::Base36_64)
ID_GEN_PQXX_TRAITS(id_gen::Base36_128)
ID_GEN_PQXX_TRAITS(id_gen::Base62_64)
ID_GEN_PQXX_TRAITS(id_gen::Base62_128)
ID_GEN_PQXX_TRAITS(id_gen::PrefixedId)
ID_GEN_PQXX_TRAITS(id_gen::ObjectId)
ID_GEN_PQXX_TRAITS(id_gen::TraceId)
ID_GEN_PQXX_TRAITS(id_gen::DecimalId)
ID_GEN_PQXX_TRAITS(id_gen::ShardId)
ID_GEN_PQXX_TRAITS(id_gen::Ksuid)
ID_GEN_PQXX_TRAITS(id_gen::Xid)
}  // namespace pqxx

#undef ID_GEN_PQXX_TRAITS
