// libFuzzer target: the snowflake decimal parser and the layout codecs. Invariants: never crash;
// any accepted text is in [1, 2^63-1] and formats back to its canonical digits; any positive
// 64-bit value unpacks and packs back to itself in every built-in layout whose fields cover it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "core/types/snowflake.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* text = reinterpret_cast<const char*>(data);
    auto parsed = idgen::snowflake_parse(text, size);
    if (parsed.ok()) {
        if (*parsed < 1) __builtin_trap();
        char out[20];
        const std::size_t n = idgen::snowflake_format(*parsed, out);
        auto back = idgen::snowflake_parse(out, n);
        if (!back.ok() || *back != *parsed) __builtin_trap();
    }
    if (size >= 8) {
        std::int64_t v;
        std::memcpy(&v, data, 8);
        if (v >= 1) {
            for (const char* name : {"twitter", "instagram", "sonyflake", "javascript"}) {
                auto l = idgen::snowflake_named_layout(name, std::strlen(name));
                if (!l.ok()) __builtin_trap();
                const auto p = idgen::snowflake_unpack(*l, v);
                auto re = idgen::snowflake_pack(*l, p.time, p.node, p.seq);
                // Layouts narrower than 63 bits drop the bits above them; the rest must round-trip.
                const int width = l->time_bits + l->node_bits + l->seq_bits;
                const std::int64_t kept = width >= 63 ? v : (v & ((std::int64_t{1} << width) - 1));
                if (kept >= 1 && (!re.ok() || *re != kept)) __builtin_trap();
                const std::int64_t ms = idgen::snowflake_time_ms(*l, v);
                auto lo = idgen::snowflake_lower(*l, ms);
                auto hi = idgen::snowflake_upper(*l, ms);
                if (kept >= 1 && (!lo.ok() || !hi.ok() || *lo > kept || *hi < kept)) __builtin_trap();
            }
        }
    }
    return 0;
}
