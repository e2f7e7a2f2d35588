// id_gen C++ library: UUID version 6 (SQL: uuidv6(), uuid_v1_to_v6(), uuid_v6_to_v1()).
//
// The 60-bit Gregorian timestamp (100 ns since 1582-10-15) high bits first, version 6, then a
// 14-bit clock sequence and a 48-bit node, both random for each ID, the node's multicast bit set.
// Uuid::time() reads versions 1, 6 and 7 (SQL: uuid_time, the extension's uuid_extract_timestamp).
#pragma once

#include <memory>

#include "id_gen/uuid.hpp"

namespace id_gen {

// Lossless reordering of the timestamp; errc::invalid_argument (22023, as SQL) for a UUID of any
// other version or variant.
[[nodiscard]] Uuid uuid_v1_to_v6(const Uuid& v1);
[[nodiscard]] Uuid uuid_v6_to_v1(const Uuid& v6);

// Strictly increasing within one generator (a clock that stands still or steps back runs the
// timestamp ahead by 100 ns per ID); next() may be called from many threads at once. After
// fork(), the child draws fresh random bytes.
class Uuidv6Generator {
public:
    Uuidv6Generator();
    explicit Uuidv6Generator(Clock clock);
    ~Uuidv6Generator();
    Uuidv6Generator(const Uuidv6Generator&) = delete;
    Uuidv6Generator& operator=(const Uuidv6Generator&) = delete;

    // errc::entropy_failure. (Every clock reading, int64 Unix ns, fits the 60-bit timestamp.)
    [[nodiscard]] Uuid next();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The process-wide Uuidv6Generator.
[[nodiscard]] Uuid new_uuidv6();

}  // namespace id_gen
