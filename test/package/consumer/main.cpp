// A program that uses the installed C++ library (test/package/run.sh builds it with CMake's
// find_package and with pkg-config): it prints "consumer <version> ok" when the library works.
#include <id_gen/id_gen.hpp>

#include <iostream>
#include <string>

int main() {
    const id_gen::Ulid a = id_gen::new_ulid();
    const id_gen::Ulid b = id_gen::new_ulid();
    id_gen::SnowflakeGenerator snowflakes(7);
    const id_gen::Snowflake s = snowflakes.next();
    const id_gen::Uuid u = id_gen::new_uuidv7();
    const bool ok = id_gen::Ulid::parse(a.to_string()) == a && a < b && s.node() == 7 && u.version() == 7 &&
                    id_gen::PrefixedId::parse("acct", id_gen::PrefixedId("acct", u).to_string()).id() == u &&
                    std::string(id_gen::version()) == ID_GEN_VERSION_STRING;
    std::cout << "consumer " << id_gen::version() << " " << a << " " << s << " " << u << (ok ? " ok" : " FAILED")
              << "\n";
    return ok ? 0 : 1;
}
