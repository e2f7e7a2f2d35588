// The C++ library's half of bench/cxxlib.sh: ns per ID of each generator (and the text codec),
// in interleaved rounds (odd rounds in the listed order, even rounds reversed), on the calling
// thread's CPU clock and on the wall clock. Prints one line per contender and round:
//   <contender> TAB <round> TAB <cpu ns for all IDs> TAB <wall ns for all IDs> TAB <IDs>
//   bench_cxxlib ROUNDS IDS
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "id_gen/id_gen.hpp"

namespace {

std::int64_t now_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

volatile std::uint64_t g_sink;  // results go somewhere, so no call is optimised away

struct Contender {
    std::string name;
    std::function<void(long)> run;  // makes n IDs
    clockid_t cpu_clock;            // the thread's CPU clock, or the process's for several threads
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s ROUNDS IDS\n", argv[0]);
        return 2;
    }
    const int rounds = std::atoi(argv[1]);
    const long ids = std::atol(argv[2]);

    id_gen::UlidGenerator ulids;
    id_gen::Uuidv7Generator uuids;
    // A burst of IDs above the layout's 4,096 per ms runs ahead of the clock instead of waiting:
    // the call's own cost, as bench/snowflake.sh measures gen_snowflake() (run-ahead 60 s).
    id_gen::SnowflakeOptions o;
    o.max_run_ahead = std::chrono::milliseconds(60000);
    id_gen::SnowflakeGenerator snowflakes(1, id_gen::SnowflakeLayout::twitter(), o);
    const id_gen::Ulid sample = ulids.next();
    const std::string sample_text = sample.to_string();

    const std::vector<Contender> contenders = {
        {"UlidGenerator::next()",
         [&](long n) {
             std::uint64_t s = 0;
             for (long i = 0; i < n; ++i) s += ulids.next().bytes()[15];
             g_sink = s;
         },
         CLOCK_THREAD_CPUTIME_ID},
        {"Uuidv7Generator::next()",
         [&](long n) {
             std::uint64_t s = 0;
             for (long i = 0; i < n; ++i) s += uuids.next().bytes()[15];
             g_sink = s;
         },
         CLOCK_THREAD_CPUTIME_ID},
        {"SnowflakeGenerator::next()",
         [&](long n) {
             std::uint64_t s = 0;
             for (long i = 0; i < n; ++i) s += static_cast<std::uint64_t>(snowflakes.next().value());
             g_sink = s;
         },
         CLOCK_THREAD_CPUTIME_ID},
        {"new_ulid() (process-wide)",
         [&](long n) {
             std::uint64_t s = 0;
             for (long i = 0; i < n; ++i) s += id_gen::new_ulid().bytes()[15];
             g_sink = s;
         },
         CLOCK_THREAD_CPUTIME_ID},
        {"UlidGenerator::next(), 2 threads",
         [&](long n) {
             std::vector<std::thread> t;
             for (int k = 0; k < 2; ++k)
                 t.emplace_back([&] {
                     std::uint64_t s = 0;
                     for (long i = 0; i < n / 2; ++i) s += ulids.next().bytes()[15];
                     g_sink = s;
                 });
             for (auto& x : t) x.join();
         },
         CLOCK_PROCESS_CPUTIME_ID},
        {"Ulid::to_string()",
         [&](long n) {
             std::uint64_t s = 0;
             for (long i = 0; i < n; ++i) s += static_cast<unsigned char>(sample.to_string()[25]);
             g_sink = s;
         },
         CLOCK_THREAD_CPUTIME_ID},
        {"Ulid::parse()",
         [&](long n) {
             std::uint64_t s = 0;
             for (long i = 0; i < n; ++i) s += id_gen::Ulid::parse(sample_text).bytes()[15];
             g_sink = s;
         },
         CLOCK_THREAD_CPUTIME_ID},
    };

    const std::size_t k = contenders.size();
    for (int r = 1; r <= rounds; ++r) {
        for (std::size_t j = 0; j < k; ++j) {
            const Contender& c = contenders[r % 2 == 1 ? j : k - 1 - j];
            const std::int64_t c0 = now_ns(c.cpu_clock), w0 = now_ns(CLOCK_MONOTONIC);
            c.run(ids);
            const std::int64_t w1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(c.cpu_clock);
            std::printf("%s\t%d\t%lld\t%lld\t%ld\n", c.name.c_str(), r, static_cast<long long>(c1 - c0),
                        static_cast<long long>(w1 - w0), ids);
            std::fflush(stdout);
        }
    }
    return 0;
}
