/*
 * The TCP channel's challenge-response (docs/sandbox-channel.md, "Authentication over TCP"),
 * as pure functions: the handler (sandboxd.c) does the I/O, the fuzz harness drives the same
 * checks. On accept the helper sends a challenge; the client proves it holds the sandbox's key
 * and sends a nonce of its own; the helper proves the same. Only then does the hello follow.
 *
 *   helper -> client   N  nonce_h (32 bytes, getrandom)
 *   client -> helper   A  HMAC-SHA256(key, AUTH_CLIENT_CONTEXT || nonce_h) || nonce_c (32 + 32)
 *   helper -> client   A  HMAC-SHA256(key, AUTH_HELPER_CONTEXT || nonce_h || nonce_c)  (32)
 *
 * The two context strings have the same length and differ, so a MAC one side computed is never
 * a valid answer of the other side (no reflection), and fixed lengths make each concatenation
 * unambiguous.
 */
#ifndef AGENTBOX_SANDBOXD_AUTH_H
#define AGENTBOX_SANDBOXD_AUTH_H

#include "sha256.h"

#define AUTH_KEY 32u       /* bytes of a sandbox's key */
#define AUTH_NONCE 32u     /* bytes of each side's nonce */
#define AUTH_MAC SHA256_DIGEST
#define AUTH_ANSWER (AUTH_MAC + AUTH_NONCE) /* the client's A payload */
#define AUTH_CHALLENGE_TYPE 'N'
#define AUTH_ANSWER_TYPE 'A'
#define AUTH_CLIENT_CONTEXT "agentbox-sandboxd/1 client"
#define AUTH_HELPER_CONTEXT "agentbox-sandboxd/1 helper"

/* The header of the client's answer: type A and exactly AUTH_ANSWER bytes, nothing else. */
int auth_answer_head_ok(const unsigned char *head);

/* What the client must answer to the challenge nonce_h. */
void auth_client_mac(const unsigned char key[AUTH_KEY], const unsigned char nonce_h[AUTH_NONCE],
                     unsigned char out[AUTH_MAC]);

/* The helper's proof, over both nonces (nonces = nonce_h || nonce_c). */
void auth_helper_mac(const unsigned char key[AUTH_KEY],
                     const unsigned char nonces[2 * AUTH_NONCE], unsigned char out[AUTH_MAC]);

/* Whether a[0, n) equals b[0, n), in time that does not depend on where they differ. */
int auth_equal(const unsigned char *a, const unsigned char *b, size_t n);

#endif
