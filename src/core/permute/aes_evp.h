// id_gen core: AES from OpenSSL as an ff1::BlockCipher (header only: the files that include it
// link libcrypto; the rest of the core, and the C++ client library built from it, do not).
//
// One EVP context in ECB mode with padding off, made once per key and kept: EVP_Cipher on it is
// the raw block function (AES-NI where the CPU has it), without a context set up per call.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>

#include "core/permute/ff1.h"

namespace idgen::aes {

// A context for a 16-, 24- or 32-byte key (AES-128/192/256), or nullptr. Free it with context_free.
inline EVP_CIPHER_CTX* context_new(const std::uint8_t* key, std::size_t len) noexcept {
    const EVP_CIPHER* cipher = len == 16   ? EVP_aes_128_ecb()
                               : len == 24 ? EVP_aes_192_ecb()
                               : len == 32 ? EVP_aes_256_ecb()
                                           : nullptr;
    if (cipher == nullptr) return nullptr;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (ctx == nullptr) return nullptr;
    if (EVP_EncryptInit_ex(ctx, cipher, nullptr, key, nullptr) != 1 || EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        return nullptr;
    }
    return ctx;
}

inline void context_free(EVP_CIPHER_CTX* ctx) noexcept { EVP_CIPHER_CTX_free(ctx); }

inline void encrypt_block(const void* ctx, const std::uint8_t* in, std::uint8_t* out) noexcept {
    EVP_Cipher(static_cast<EVP_CIPHER_CTX*>(const_cast<void*>(ctx)), out, in, 16);
}

inline ff1::BlockCipher block_cipher(EVP_CIPHER_CTX* ctx) noexcept { return ff1::BlockCipher{&encrypt_block, ctx}; }

}  // namespace idgen::aes
