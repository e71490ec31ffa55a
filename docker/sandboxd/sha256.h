/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the helper's TCP authentication
 * (auth.c). The helper is static and libc-only, so it carries these ~150 lines instead of a
 * crypto library. Checked against the FIPS 180-4 examples and the RFC 4231 test cases by
 * SandboxdCryptoTest (through crypto/vectors.c), and against Java's own SHA-256 and HMAC for
 * every message length around the block boundaries.
 *
 * Pure functions of their inputs: no allocation, no I/O, no global state.
 */
#ifndef AGENTBOX_SANDBOXD_SHA256_H
#define AGENTBOX_SANDBOXD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BLOCK 64u  /* bytes per compression-function block */
#define SHA256_DIGEST 32u /* bytes of a digest */

struct sha256 {
    uint32_t h[8];                /* the chaining state H(i) */
    uint64_t bytes;               /* message length so far, in bytes */
    unsigned char buf[SHA256_BLOCK]; /* a partial block, buf[0, bytes % 64) */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Pads, writes the digest to out and wipes the state. */
void sha256_final(struct sha256 *s, unsigned char out[SHA256_DIGEST]);

/*
 * HMAC-SHA256 of the message parts m1 || m2 (either may be empty) under key: two parts because
 * every MAC the helper computes is a fixed context string followed by nonces.
 */
void hmac_sha256(const unsigned char *key, size_t key_len, const void *m1, size_t len1,
                 const void *m2, size_t len2, unsigned char out[SHA256_DIGEST]);

#endif
