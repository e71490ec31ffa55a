/*
 * A filter over sha256.c for SandboxdCryptoTest, which holds the published test vectors
 * (FIPS 180-4 examples, RFC 4231) and compares. One request a line on stdin, one lowercase hex
 * digest a line on stdout:
 *   sha256 MSGHEX [COUNT]    SHA-256 of MSG repeated COUNT times (default 1)
 *   hmac KEYHEX MSGHEX       HMAC-SHA256
 * An empty MSG or KEY is written `-`.
 * Built by `build.sh --vectors OUT` with the sanitizers, so a read past a buffer fails the test.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

/* Decodes hex into a buffer of exactly the decoded size (so ASan sees any overread). */
static unsigned char *unhex(const char *h, size_t *n) {
    if (strcmp(h, "-") == 0) h = "";
    size_t len = strlen(h);
    if (len % 2) exit(2);
    *n = len / 2;
    unsigned char *b = malloc(*n ? *n : 1);
    if (!b) exit(2);
    for (size_t i = 0; i < *n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) exit(2);
        b[i] = (unsigned char)v;
    }
    return b;
}

static void print(const unsigned char d[SHA256_DIGEST]) {
    for (unsigned i = 0; i < SHA256_DIGEST; i++) printf("%02x", d[i]);
    putchar('\n');
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *op = strtok(line, " "), *a = strtok(NULL, " "), *b = strtok(NULL, " ");
        if (!op || !a) return 2;
        unsigned char d[SHA256_DIGEST];
        size_t n, m;
        if (strcmp(op, "sha256") == 0) {
            unsigned char *msg = unhex(a, &n);
            long count = b ? strtol(b, NULL, 10) : 1;
            struct sha256 s;
            sha256_init(&s);
            for (long i = 0; i < count; i++) sha256_update(&s, msg, n);
            sha256_final(&s, d);
            free(msg);
        } else if (strcmp(op, "hmac") == 0 && b) {
            unsigned char *key = unhex(a, &n), *msg = unhex(b, &m);
            /* The message in two parts, split in the middle: both parts must count. */
            hmac_sha256(key, n, msg, m / 2, msg + m / 2, m - m / 2, d);
            free(key);
            free(msg);
        } else {
            return 2;
        }
        print(d);
        fflush(stdout);
    }
    free(line);
    return 0;
}
