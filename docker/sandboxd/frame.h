/*
 * The sandbox channel's frames and requests, parsed without I/O (frame.c).
 *
 * Everything here is a pure function of its input, so the handler and the fuzz harness
 * (fuzz/fuzz_frames.c) run the very same code. A malformed frame or request is reported as a
 * frame_error: the static message the handler sends with EPROTO (NULL when well formed).
 */
#ifndef AGENTBOX_SANDBOXD_FRAME_H
#define AGENTBOX_SANDBOXD_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define VERSION "agentbox-sandboxd/1"
#define MAX_PAYLOAD (1024u * 1024u) /* largest frame payload, either direction */
#define FRAME_HEAD 5u               /* type (1 byte) + length (4 bytes, big-endian) */

typedef const char *frame_error;

/* Every type a client may send; anything else is a protocol error wherever it appears. */
int client_type(char t);
uint32_t frame_length(const unsigned char *head);
/* A header whose payload may be read: a known type, a length of at most MAX_PAYLOAD. */
frame_error check_head(const unsigned char *head);

/*
 * The first whole frame in buf[0, len): returns 1 and sets type, payload (pointing into buf) and
 * plen; 0 while the frame is incomplete; -1 with *why for a bad header, which is reported as
 * soon as the header is in (a bogus length must not make anyone wait for 4 GiB).
 */
int frame_next(const unsigned char *buf, size_t len, char *type, const unsigned char **payload,
               uint32_t *plen, frame_error *why);

/* A type that may open a request (after the hello): X R W P L M V K G. */
int request_type(char t);

/* The hello's payload: the version alone, or NUL-terminated like a field. */
int hello_ok(const unsigned char *payload, size_t len);

/*
 * A request payload is fields, each terminated by a NUL. count_fields checks that and counts
 * them (a payload not ending with NUL has a truncated last field: malformed, not "one field
 * short"); split_fields then points v[0, n) at them, and v[n] = NULL.
 */
frame_error count_fields(const char *p, size_t len, size_t *n);
void split_fields(char *p, size_t len, char **v);

/* Strict number parsing: digits of base only, at most max (strtoull takes spaces, signs, 0x). */
frame_error parse_num(const char *s, unsigned base, uint64_t max, uint64_t *out);

/* A request's fields, checked and converted. Strings point into the fields given. */
struct request {
    char type;
    const char *path;   /* R W P L M K G; `from` of V */
    const char *to;     /* V */
    uint64_t num;       /* R: max; W: mode; G: offset; X: timeout_ms */
    int follow;         /* P */
    /* X */
    const char *cwd;
    int stdin_pipe;
    const char *pidfile; /* "" for none */
    size_t argc;         /* >= 1 */
    char **argv;         /* argc fields, not NULL-terminated */
    size_t envc;
    char **vars;         /* envc fields, each KEY=VALUE */
};

/* Checks the fields f[0, n) of a request of the given type: NULL, or why it is malformed. */
frame_error parse_request(char type, char **f, size_t n, struct request *r);

/* The payload of an S frame during an exec: a signal number, 1 to NSIG - 1. */
frame_error parse_signal(const unsigned char *p, size_t len, int *sig);

#endif
