// id_gen C++ library: NanoIDs (SQL: gen_nanoid(size, alphabet)): random text, each character
// drawn uniformly from the alphabet by mask-and-reject, from the kernel CSPRNG in 4 KiB blocks.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace id_gen {

class NanoidGenerator {
public:
    static constexpr std::string_view default_alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    static constexpr std::size_t default_size = 21;

    // An alphabet of 2 to 255 distinct bytes (the library does not know the text's encoding: keep
    // it to ASCII for text that must be UTF-8) and a size of 1 to 255: errc::invalid_argument
    // (22023, as SQL) otherwise.
    explicit NanoidGenerator(std::string_view alphabet = default_alphabet, std::size_t size = default_size);
    ~NanoidGenerator();
    NanoidGenerator(const NanoidGenerator&) = delete;
    NanoidGenerator& operator=(const NanoidGenerator&) = delete;

    // May be called from many threads at once. errc::entropy_failure.
    [[nodiscard]] std::string next();
    // Another size (1 to 255, else errc::invalid_argument).
    [[nodiscard]] std::string next(std::size_t size);

private:
    struct State;
    std::unique_ptr<State> s_;
};

// 21 characters of the default alphabet from a process-wide generator.
[[nodiscard]] std::string new_nanoid();

}  // namespace id_gen
