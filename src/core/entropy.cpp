#include "entropy.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "no_pg_check.h"

namespace idgen {

bool os_random(std::uint8_t* out, std::size_t n) noexcept {
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = ::getrandom(out + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        got += static_cast<std::size_t>(r);
    }
    return true;
}

void EntropyPool::wipe() noexcept {
    std::memset(buf_, 0, sizeof buf_);
    pos_ = kBlock;
}

bool EntropyPool::refill() noexcept {
    if (!os_random(buf_, kBlock)) return false;
    pos_ = 0;
    return true;
}

bool EntropyPool::fill_refilling(std::uint8_t* out, std::size_t n) noexcept {
    while (n > 0) {
        if (pos_ == kBlock && !refill()) return false;
        std::size_t take = kBlock - pos_;
        if (take > n) take = n;
        std::memcpy(out, buf_ + pos_, take);
        // Bytes handed out are erased so that a later memory disclosure cannot replay them.
        std::memset(buf_ + pos_, 0, take);
        pos_ += take;
        out += take;
        n -= take;
    }
    return true;
}

}  // namespace idgen
