// Test doubles for the core's injected randomness.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/base/entropy.h"

namespace idgen::test {

// Hands out a fixed byte pattern (repeating), or fails on demand.
class FixedBytes final : public ByteSource {
public:
    explicit FixedBytes(std::vector<std::uint8_t> pattern) : pattern_(std::move(pattern)) {}
    bool fill(std::uint8_t* out, std::size_t n) noexcept override {
        if (fail_) return false;
        for (std::size_t i = 0; i < n; ++i) out[i] = pattern_[pos_++ % pattern_.size()];
        ++calls_;
        return true;
    }
    void set_fail(bool f) { fail_ = f; }
    int calls() const { return calls_; }

private:
    std::vector<std::uint8_t> pattern_;
    std::size_t pos_ = 0;
    int calls_ = 0;
    bool fail_ = false;
};

}  // namespace idgen::test
