// OpenSSL's libcrypto (Debian's libssl-dev) for the Accounts target (password
// hashing, random bytes, digests, token signatures) and the Push target (Web Push
// message encryption and VAPID). Never hand-written crypto.
#ifndef ALMANAC_COPENSSL_SHIM_H
#define ALMANAC_COPENSSL_SHIM_H

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <stdlib.h>
#include <string.h>

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

/// A public key from OSSL_PARAMs built by `build` (RSA or EC), NULL on failure.
static inline EVP_PKEY *copenssl_public_key(const char *type, OSSL_PARAM_BLD *builder) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (params == NULL || context == NULL || EVP_PKEY_fromdata_init(context) != 1
        || EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    return key;
}

/// An RSA public key from its modulus and exponent (big-endian bytes, as a JWK's n and
/// e), NULL when they are no key.
static inline EVP_PKEY *copenssl_rsa_public_key(const unsigned char *n, size_t nLength, const unsigned char *e, size_t eLength) {
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    BIGNUM *modulus = BN_bin2bn(n, (int)nLength, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)eLength, NULL);
    EVP_PKEY *key = NULL;
    if (builder != NULL && modulus != NULL && exponent != NULL
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        key = copenssl_public_key("RSA", builder);
    }
    BN_free(modulus);
    BN_free(exponent);
    OSSL_PARAM_BLD_free(builder);
    return key;
}

/// An EC public key on `curve` ("P-256", "P-384") from its uncompressed point
/// (0x04 || x || y), NULL when the point is not on the curve.
static inline EVP_PKEY *copenssl_ec_public_key(const char *curve, const unsigned char *point, size_t length) {
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    EVP_PKEY *key = NULL;
    if (builder != NULL && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, curve, 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, length) == 1) {
        key = copenssl_public_key("EC", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    if (key != NULL) {
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        int valid = check != NULL && EVP_PKEY_public_check(check) == 1;
        EVP_PKEY_CTX_free(check);
        if (!valid) {
            EVP_PKEY_free(key);
            key = NULL;
        }
    }
    return key;
}

/// An Ed25519 public key from its 32 bytes, NULL on failure.
static inline EVP_PKEY *copenssl_ed25519_public_key(const unsigned char *bytes, size_t length) {
    return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, bytes, length);
}

/// The key's size in bits (an RSA modulus's length).
static inline int copenssl_key_bits(const EVP_PKEY *key) { return EVP_PKEY_get_bits(key); }

/// Whether `signature` signs `message` with `key`: `digest` is 256, 384 or 512 for
/// SHA-2 (RSA PKCS#1 v1.5, ECDSA with a DER signature), 0 for Ed25519 (no digest).
static inline int copenssl_verify(EVP_PKEY *key, int digest, const unsigned char *message, size_t messageLength,
                                  const unsigned char *signature, size_t signatureLength) {
    const EVP_MD *md = digest == 256 ? EVP_sha256() : digest == 384 ? EVP_sha384() : digest == 512 ? EVP_sha512() : NULL;
    if (digest != 0 && md == NULL) return 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int valid = context != NULL && EVP_DigestVerifyInit(context, NULL, md, NULL, key) == 1
        && EVP_DigestVerify(context, signature, signatureLength, message, messageLength) == 1;
    EVP_MD_CTX_free(context);
    return valid;
}

/// An ECDSA signature as JWS writes it (r || s, each `half` bytes) in the DER form
/// OpenSSL verifies; its length in `output` (at most `capacity`), or 0.
static inline size_t copenssl_ecdsa_der(const unsigned char *raw, size_t half, unsigned char *output, size_t capacity) {
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, (int)half, NULL);
    BIGNUM *s = BN_bin2bn(raw + half, (int)half, NULL);
    size_t written = 0;
    if (signature != NULL && r != NULL && s != NULL && ECDSA_SIG_set0(signature, r, s) == 1) {
        r = NULL;
        s = NULL;
        int length = i2d_ECDSA_SIG(signature, NULL);
        if (length > 0 && (size_t)length <= capacity) {
            unsigned char *cursor = output;
            written = (size_t)i2d_ECDSA_SIG(signature, &cursor);
        }
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(signature);
    return written;
}

/// A new P-256 key pair, NULL on failure.
static inline EVP_PKEY *copenssl_p256_generate(void) { return EVP_EC_gen("P-256"); }

/// An EC key's public point, uncompressed (65 bytes for P-256), into `output`; its
/// length, or 0.
static inline size_t copenssl_ec_public_point(const EVP_PKEY *key, unsigned char *output, size_t capacity) {
    size_t length = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, output, capacity, &length) != 1) {
        return 0;
    }
    return length;
}

/// A private key as PKCS#8 PEM in a buffer from malloc (free it with free()), its
/// length in `length`; NULL on failure.
static inline char *copenssl_private_key_pem(EVP_PKEY *key, size_t *length) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *result = NULL;
    if (bio != NULL && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long count = BIO_get_mem_data(bio, &data);
        if (count > 0 && (result = malloc((size_t)count)) != NULL) {
            memcpy(result, data, (size_t)count);
            *length = (size_t)count;
        }
    }
    BIO_free(bio);
    return result;
}

/// The private key a PEM text holds, NULL when it holds none.
static inline EVP_PKEY *copenssl_private_key_from_pem(const char *pem, size_t length) {
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    EVP_PKEY *key = bio != NULL ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    return key;
}

/// The ECDH shared secret of `key` (private) and `peer` (public) into `output`; its
/// length, or 0.
static inline size_t copenssl_ecdh(EVP_PKEY *key, EVP_PKEY *peer, unsigned char *output, size_t capacity) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    size_t length = capacity;
    if (context == NULL || EVP_PKEY_derive_init(context) != 1 || EVP_PKEY_derive_set_peer(context, peer) != 1
        || EVP_PKEY_derive(context, output, &length) != 1) {
        length = 0;
    }
    EVP_PKEY_CTX_free(context);
    return length;
}

/// An ES256 signature (ECDSA P-256 with SHA-256) of `message` as JWS writes it: r || s,
/// 32 bytes each, into `output` (64 bytes); 1 on success.
static inline int copenssl_es256_sign(EVP_PKEY *key, const unsigned char *message, size_t length, unsigned char *output) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    unsigned char der[80];
    size_t derLength = sizeof der;
    int ok = context != NULL && EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, key) == 1
        && EVP_DigestSign(context, der, &derLength, message, length) == 1;
    EVP_MD_CTX_free(context);
    if (!ok) return 0;
    const unsigned char *cursor = der;
    ECDSA_SIG *signature = d2i_ECDSA_SIG(NULL, &cursor, (long)derLength);
    if (signature == NULL) return 0;
    const BIGNUM *r = NULL;
    const BIGNUM *s = NULL;
    ECDSA_SIG_get0(signature, &r, &s);
    ok = BN_bn2binpad(r, output, 32) == 32 && BN_bn2binpad(s, output + 32, 32) == 32;
    ECDSA_SIG_free(signature);
    return ok;
}

/// HKDF-SHA256 (RFC 5869), extract and expand, `outputLength` bytes; 1 on success.
static inline int copenssl_hkdf_sha256(const unsigned char *salt, size_t saltLength, const unsigned char *key,
                                       size_t keyLength, const unsigned char *info, size_t infoLength,
                                       unsigned char *output, size_t outputLength) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    size_t length = outputLength;
    int ok = context != NULL && EVP_PKEY_derive_init(context) == 1
        && EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1
        && EVP_PKEY_CTX_set1_hkdf_salt(context, salt, (int)saltLength) == 1
        && EVP_PKEY_CTX_set1_hkdf_key(context, key, (int)keyLength) == 1
        && EVP_PKEY_CTX_add1_hkdf_info(context, info, (int)infoLength) == 1
        && EVP_PKEY_derive(context, output, &length) == 1 && length == outputLength;
    EVP_PKEY_CTX_free(context);
    return ok;
}

/// AES-128-GCM with a 12-byte nonce: the ciphertext of `length` bytes and the 16-byte
/// tag after it into `output` (`length` + 16 bytes); 1 on success.
static inline int copenssl_aes128gcm_seal(const unsigned char *key, const unsigned char *nonce,
                                          const unsigned char *plaintext, size_t length, unsigned char *output) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0;
    int last = 0;
    int ok = context != NULL && EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), NULL, key, nonce) == 1
        && EVP_EncryptUpdate(context, output, &written, plaintext, (int)length) == 1
        && EVP_EncryptFinal_ex(context, output + written, &last) == 1
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, output + written + last) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

#endif
