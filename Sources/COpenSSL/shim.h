// OpenSSL's libcrypto (Debian's libssl-dev) for the Accounts target: password
// hashing, random bytes and digests. Never hand-written crypto.
#ifndef ALMANAC_COPENSSL_SHIM_H
#define ALMANAC_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>

/// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2); 1 on success. EVP_sha256() is a function
/// returning a static table, called here so Swift needs no EVP_MD type.
static inline int copenssl_pbkdf2_sha256(
    const char *password, int passwordLength, const unsigned char *salt, int saltLength, int iterations,
    unsigned char *output, int outputLength)
{
    return PKCS5_PBKDF2_HMAC(password, passwordLength, salt, saltLength, iterations, EVP_sha256(), outputLength, output);
}

/// SHA-256 of `length` bytes into `output` (32 bytes); 1 on success.
static inline int copenssl_sha256(const void *data, size_t length, unsigned char *output) {
    unsigned int written = 0;
    return EVP_Digest(data, length, output, &written, EVP_sha256(), NULL);
}

/// HMAC-SHA256 into `output` (32 bytes); 1 on success.
static inline int copenssl_hmac_sha256(const void *key, int keyLength, const unsigned char *data, size_t length, unsigned char *output) {
    unsigned int written = 0;
    return HMAC(EVP_sha256(), key, keyLength, data, length, output, &written) != NULL;
}

#endif
