/*
 * libFuzzer target over the helper's frame parser (frame.c): the input is the byte stream a
 * client sends on one connection. It is taken apart exactly as a handler does (hello, one
 * request, then the D/Z frames of a write or the I/Z/S frames of an exec), with no socket and no
 * side effect. An input that starts with an A frame is a TCP connection (serve-tcp): its answer
 * to the challenge goes through the checks and MACs of auth.c (sha256.c) first; whatever the
 * verdict, the rest is parsed as above, so the fuzzer need not forge a MAC to reach it. Each payload is copied into a buffer of its own exact size, so that reading one
 * byte past it is an AddressSanitizer report, not a silent read of the next frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "frame.h"

/* A TCP connection's answer to the challenge, as authenticate() in sandboxd.c checks it; 0 when
 * the handler would close the connection on the header or for want of bytes. */
static int answer_challenge(const uint8_t *data, size_t size) {
    static const unsigned char key[AUTH_KEY] = {1}, nonce_h[AUTH_NONCE] = {2};
    if (!auth_answer_head_ok(data)) return 0;
    if (size - FRAME_HEAD < AUTH_ANSWER) return 0;
    unsigned char *answer = malloc(AUTH_ANSWER); /* exact size: an overread is a report */
    if (!answer) return 0;
    memcpy(answer, data + FRAME_HEAD, AUTH_ANSWER);
    unsigned char mac[AUTH_MAC], nonces[2 * AUTH_NONCE];
    auth_client_mac(key, nonce_h, mac);
    int equal = auth_equal(mac, answer, AUTH_MAC);
    if (equal != (memcmp(mac, answer, AUTH_MAC) == 0)) abort();
    memcpy(nonces, nonce_h, AUTH_NONCE);
    memcpy(nonces + AUTH_NONCE, answer + AUTH_MAC, AUTH_NONCE);
    auth_helper_mac(key, nonces, mac);
    free(answer);
    return 1;
}

/* Reads every string a request points at, so that one not NUL-terminated inside its payload
 * is caught. */
static size_t touch(const struct request *r) {
    size_t sum = 0;
    if (r->path) sum += strlen(r->path);
    if (r->to) sum += strlen(r->to);
    if (r->type == 'X') {
        sum += strlen(r->cwd) + strlen(r->pidfile);
        for (size_t i = 0; i < r->argc; i++) sum += strlen(r->argv[i]);
        for (size_t i = 0; i < r->envc; i++) sum += strlen(r->vars[i]);
    }
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t off = 0;
    char request = 0;
    if (size >= FRAME_HEAD && data[0] == AUTH_ANSWER_TYPE) {
        if (!answer_challenge(data, size)) return 0;
        off = FRAME_HEAD + AUTH_ANSWER;
    }
    for (int step = 0;; step++) {
        char type;
        const unsigned char *p;
        uint32_t len;
        frame_error why;
        int got = frame_next(data + off, size - off, &type, &p, &len, &why);
        if (got < 0 && why == NULL) abort(); /* an error must say why: it goes into F */
        if (got <= 0) return 0;
        off += FRAME_HEAD + len;
        char *payload = malloc(len ? len : 1);
        if (!payload) return 0;
        memcpy(payload, p, len);
        int go_on = 1;
        if (step == 0) {
            go_on = type == 'H' && hello_ok((const unsigned char *)payload, len);
        } else if (step == 1) {
            size_t n;
            char **f;
            struct request r;
            go_on = request_type(type) && count_fields(payload, len, &n) == NULL &&
                    (f = malloc((n + 1) * sizeof *f)) != NULL;
            if (go_on) {
                split_fields(payload, len, f);
                if (f[n] != NULL) abort();
                go_on = parse_request(type, f, n, &r) == NULL;
                if (go_on && r.type != type) abort();
                if (go_on && touch(&r) > size) abort(); /* strings lie inside the input */
                if (go_on && r.type == 'X' && (r.argc < 1 || r.argv + r.argc > f + n)) abort();
                free(f);
                request = type;
            }
        } else if (request == 'X' && type == 'S') {
            int sig;
            go_on = parse_signal((const unsigned char *)payload, len, &sig) == NULL;
            if (go_on && sig <= 0) abort();
        } else if (request == 'X') {
            go_on = type == 'I' || type == 'Z';
        } else if (request == 'W') {
            go_on = type == 'D';
        } else {
            go_on = 0; /* every other request reads nothing more */
        }
        free(payload);
        if (!go_on) return 0;
    }
}
