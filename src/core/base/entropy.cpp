#include "core/base/entropy.h"

#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/chacha20.h"
#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

// Process-wide (one per process image; a child gets a copy, which the handler marks stale).
bool g_pid_handler_registered = false;
volatile bool g_pid_stale = true;
int g_pid = -1;

void mark_pid_stale() noexcept { g_pid_stale = true; }

}  // namespace

int process_id() noexcept {
    if (!g_pid_handler_registered) {
        // If registration fails, the value stays stale and getpid() is read on every call.
        g_pid_handler_registered = pthread_atfork(nullptr, nullptr, mark_pid_stale) == 0;
        g_pid_stale = true;
    }
    if (g_pid_stale) {
        g_pid = static_cast<int>(getpid());
        g_pid_stale = !g_pid_handler_registered;
    }
    return g_pid;
}

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
    std::memset(key_, 0, sizeof key_);
    pos_ = kBlock;
    since_reseed_ = kReseedBytes;
}

bool EntropyPool::refill() noexcept {
    static_assert(kBlock % kChaCha20BlockLen == 0 && sizeof key_ == kChaCha20KeyLen);
    if (since_reseed_ >= kReseedBytes) {
        if (!os_random(key_, sizeof key_)) return false;
        since_reseed_ = 0;
    }
    static constexpr std::uint8_t kNonce[kChaCha20NonceLen] = {};  // a key serves one batch
    chacha20_blocks(key_, 1, kNonce, buf_, kBlock / kChaCha20BlockLen);
    std::uint8_t next[kChaCha20BlockLen];
    chacha20_blocks(key_, 0, kNonce, next, 1);
    std::memcpy(key_, next, sizeof key_);  // fast key erasure: the batch's key is gone
    volatile std::uint8_t* erase = next;
    for (std::size_t i = 0; i < sizeof next; ++i) erase[i] = 0;
    since_reseed_ += kBlock;
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
