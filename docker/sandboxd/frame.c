/*
 * The sandbox channel's frames and requests, parsed without I/O: see frame.h. No allocation and
 * no side effect here, so that a fuzzer can drive any byte sequence through it.
 */
#define _GNU_SOURCE
#include "frame.h"

#include <signal.h>
#include <string.h>

int client_type(char t) { return t != '\0' && strchr("HXRWPLMVKGIZSD", t) != NULL; }

int request_type(char t) { return t != '\0' && strchr("XRWPLMVKG", t) != NULL; }

uint32_t frame_length(const unsigned char *head) {
    return (uint32_t)head[1] << 24 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 8 | head[4];
}

frame_error check_head(const unsigned char *head) {
    if (frame_length(head) > MAX_PAYLOAD) return "frame too large";
    if (!client_type((char)head[0])) return "unknown frame type";
    return NULL;
}

int frame_next(const unsigned char *buf, size_t len, char *type, const unsigned char **payload,
               uint32_t *plen, frame_error *why) {
    if (len < FRAME_HEAD) return 0;
    if ((*why = check_head(buf)) != NULL) return -1;
    uint32_t n = frame_length(buf);
    /* n <= MAX_PAYLOAD: the sum cannot wrap. */
    if (len - FRAME_HEAD < n) return 0;
    *type = (char)buf[0];
    *payload = buf + FRAME_HEAD;
    *plen = n;
    return 1;
}

int hello_ok(const unsigned char *payload, size_t len) {
    size_t v = strlen(VERSION);
    return (len == v || (len == v + 1 && payload[v] == '\0')) && memcmp(payload, VERSION, v) == 0;
}

frame_error count_fields(const char *p, size_t len, size_t *n) {
    if (len == 0 || p[len - 1] != '\0') return "request fields must end with NUL";
    size_t k = 0;
    for (size_t i = 0; i < len; i++) k += p[i] == '\0';
    *n = k;
    return NULL;
}

void split_fields(char *p, size_t len, char **v) {
    char *start = p;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '\0') {
            v[k++] = start;
            start = p + i + 1;
        }
    }
    v[k] = NULL;
}

frame_error parse_num(const char *s, unsigned base, uint64_t max, uint64_t *out) {
    if (*s == '\0') return "empty number";
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (*s < '0' || d >= base) return "not a number";
        if (d > max || v > (max - d) / base) return "number out of range";
        v = v * base + d;
    }
    *out = v;
    return NULL;
}

static frame_error parse_exec(char **f, size_t n, struct request *r) {
    frame_error e;
    uint64_t v;
    if (n < 6) return "wrong number of fields";
    if ((e = parse_num(f[0], 10, INT64_MAX / 2, &r->num)) != NULL) return e;
    r->cwd = f[1];
    if (strcmp(f[2], "pipe") == 0) r->stdin_pipe = 1;
    else if (strcmp(f[2], "null") == 0) r->stdin_pipe = 0;
    else return "stdin must be pipe or null";
    r->pidfile = f[3];
    if (*r->pidfile && r->pidfile[0] != '/') return "pidfile must be absolute";
    /* Counts are bounded by n, so the sums below cannot wrap. */
    if ((e = parse_num(f[4], 10, n, &v)) != NULL) return e;
    r->argc = (size_t)v;
    if (r->argc < 1 || 5 + r->argc + 1 > n) return "wrong number of fields";
    if ((e = parse_num(f[5 + r->argc], 10, n, &v)) != NULL) return e;
    r->envc = (size_t)v;
    if (6 + r->argc + r->envc != n) return "wrong number of fields";
    r->argv = f + 5;
    r->vars = f + 6 + r->argc;
    for (size_t i = 0; i < r->envc; i++)
        if (r->vars[i][0] == '=' || !strchr(r->vars[i], '=')) return "env must be KEY=VALUE";
    return NULL;
}

frame_error parse_request(char type, char **f, size_t n, struct request *r) {
    memset(r, 0, sizeof *r);
    r->type = type;
    size_t want;
    switch (type) {
    case 'X': return parse_exec(f, n, r);
    case 'R': case 'W': case 'P': case 'V': case 'G': want = 2; break;
    case 'L': case 'M': case 'K': want = 1; break;
    default: return "expected a request";
    }
    if (n != want) return "wrong number of fields";
    r->path = f[0];
    switch (type) {
    case 'R': return parse_num(f[1], 10, UINT64_MAX - 1, &r->num); /* max + 1 must not wrap */
    case 'W': return parse_num(f[1], 8, 07777, &r->num);
    case 'G': return parse_num(f[1], 10, INT64_MAX, &r->num); /* an off_t */
    case 'V': r->to = f[1]; return NULL;
    case 'P':
        if (strcmp(f[1], "1") == 0) r->follow = 1;
        else if (strcmp(f[1], "0") == 0) r->follow = 0;
        else return "follow must be 1 or 0";
        return NULL;
    default: return NULL;
    }
}

frame_error parse_signal(const unsigned char *p, size_t len, int *sig) {
    char num[16];
    size_t n = len;
    if (n > 0 && p[n - 1] == '\0') n--; /* a NUL-terminated number is accepted too */
    if (n == 0 || n >= sizeof num || memchr(p, '\0', n)) return "bad signal";
    memcpy(num, p, n);
    num[n] = '\0';
    uint64_t v;
    if (parse_num(num, 10, NSIG - 1, &v) != NULL || v == 0) return "bad signal";
    *sig = (int)v;
    return NULL;
}
