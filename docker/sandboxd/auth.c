/* The TCP channel's challenge-response: see auth.h. No I/O and no state here. */
#include "auth.h"

#include <string.h>

#include "frame.h"

int auth_answer_head_ok(const unsigned char *head) {
    return head[0] == AUTH_ANSWER_TYPE && frame_length(head) == AUTH_ANSWER;
}

void auth_client_mac(const unsigned char key[AUTH_KEY], const unsigned char nonce_h[AUTH_NONCE],
                     unsigned char out[AUTH_MAC]) {
    hmac_sha256(key, AUTH_KEY, AUTH_CLIENT_CONTEXT, strlen(AUTH_CLIENT_CONTEXT), nonce_h,
                AUTH_NONCE, out);
}

void auth_helper_mac(const unsigned char key[AUTH_KEY],
                     const unsigned char nonces[2 * AUTH_NONCE], unsigned char out[AUTH_MAC]) {
    hmac_sha256(key, AUTH_KEY, AUTH_HELPER_CONTEXT, strlen(AUTH_HELPER_CONTEXT), nonces,
                2 * AUTH_NONCE, out);
}

/*
 * Guards against a timing oracle: memcmp returns at the first differing byte, so the time of a
 * refusal would tell an attacker how many leading bytes of a forged MAC were right, and let it
 * find a valid MAC byte by byte. Here every byte is compared whatever the earlier ones were.
 */
int auth_equal(const unsigned char *a, const unsigned char *b, size_t n) {
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++) diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}
