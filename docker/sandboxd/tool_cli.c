/*
 * agentbox-sandboxd tool list | tool call NAME [ARGS]: the run's tools for a `command` agent
 * (docs/sandbox-channel.md, "Tools from a shell").
 *
 * A command agent has no MCP client of its own, so this is one: it starts the relay of the run's
 * mailbox (mcp_relay.c) as a child, speaks MCP to it over two pipes (initialize, then tools/list
 * or tools/call) and prints the answer. The mailbox and the token come from the environment the
 * run's command is started with: AGENTBOX_MCP_DIR and AGENTBOX_MCP_TOKEN.
 *
 *   list               prints the tools/list result (JSON, one line: names, descriptions and
 *                      input schemas); exit 0.
 *   call NAME [ARGS]   ARGS is a JSON object (default {}; "-" reads it from stdin). Prints the
 *                      text of the result's content; exit 0, or 1 when the tool answered with an
 *                      error (its text on stdout too, "error: ..." on stderr).
 *   --json             before list/call: print the raw JSON-RPC result instead.
 * Exit 2: usage, or no bridge (the variables are missing); exit 3: the relay or the protocol
 * failed (a JSON-RPC error, the relay gone). A call waits as long as the tool does: an approval
 * may take hours, and the relay keeps the wait across a server takeover.
 *
 * The answers come from agentbox's own MCP server, so the parsing below only has to be correct
 * JSON scanning, not defensive against a hostile peer: it never trusts a length it did not count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int mcp_relay(const char *dir); /* mcp_relay.c */

#define TOOL_MAX_ARGS (1024u * 1024u) /* the relay refuses longer messages anyway */

static FILE *to_relay, *from_relay;

static _Noreturn void tool_fail(int code, const char *what) {
    fprintf(stderr, "agentbox-sandboxd tool: %s\n", what);
    exit(code);
}

static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* The end of the JSON string starting at p (p at the opening quote), or NULL. */
static const char *skip_string(const char *p) {
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p) return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* The end of the JSON value starting at p, or NULL when it is not one. */
static const char *skip_value(const char *p) {
    p = ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                p = skip_string(p);
                if (!p) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    const char *s = p;
    while (*p && !strchr(",}] \t\r\n", *p)) p++;
    return p > s ? p : NULL;
}

/* The value of the member `key` of the object at p, or NULL. */
static const char *member(const char *p, const char *key) {
    p = ws(p);
    if (*p != '{') return NULL;
    p = ws(p + 1);
    size_t klen = strlen(key);
    while (*p == '"') {
        const char *kend = skip_string(p);
        if (!kend) return NULL;
        int match = (size_t)(kend - p - 2) == klen && memcmp(p + 1, key, klen) == 0;
        p = ws(kend);
        if (*p != ':') return NULL;
        p = ws(p + 1);
        if (match) return p;
        p = skip_value(p);
        if (!p) return NULL;
        p = ws(p);
        if (*p != ',') return NULL;
        p = ws(p + 1);
    }
    return NULL;
}

static void put_utf8(unsigned cp, FILE *out) {
    if (cp < 0x80) {
        fputc((int)cp, out);
    } else if (cp < 0x800) {
        fputc(0xC0 | (cp >> 6), out);
        fputc(0x80 | (cp & 0x3F), out);
    } else if (cp < 0x10000) {
        fputc(0xE0 | (cp >> 12), out);
        fputc(0x80 | ((cp >> 6) & 0x3F), out);
        fputc(0x80 | (cp & 0x3F), out);
    } else {
        fputc(0xF0 | (cp >> 18), out);
        fputc(0x80 | ((cp >> 12) & 0x3F), out);
        fputc(0x80 | ((cp >> 6) & 0x3F), out);
        fputc(0x80 | (cp & 0x3F), out);
    }
}

static unsigned hex4(const char *p) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0xFFFD;
    }
    return v;
}

/* Writes the decoded JSON string at p (at its opening quote). */
static void put_string(const char *p, FILE *out) {
    const char *end = skip_string(p);
    if (!end) return;
    for (p++; p < end - 1; p++) {
        if (*p != '\\') {
            fputc(*p, out);
            continue;
        }
        p++;
        switch (*p) {
            case 'n': fputc('\n', out); break;
            case 't': fputc('\t', out); break;
            case 'r': fputc('\r', out); break;
            case 'b': fputc('\b', out); break;
            case 'f': fputc('\f', out); break;
            case 'u': {
                if (end - 1 - p < 5) return;
                unsigned cp = hex4(p + 1);
                p += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && end - 1 - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                    unsigned lo = hex4(p + 3);
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    }
                }
                put_utf8(cp, out);
                break;
            }
            default: fputc(*p, out); /* \" \\ \/ */
        }
    }
}

/* Reads lines from the relay until the answer to `id`; notifications are passed over. */
static char *answer_to(int id) {
    char want[32];
    snprintf(want, sizeof want, "%d", id);
    char *line = NULL;
    size_t cap = 0;
    for (;;) {
        ssize_t n = getline(&line, &cap, from_relay);
        if (n < 0) tool_fail(3, "the relay ended before answering");
        const char *v = member(line, "id");
        const char *e = v ? skip_value(v) : NULL;
        if (e && (size_t)(e - v) == strlen(want) && memcmp(v, want, (size_t)(e - v)) == 0) {
            return line;
        }
    }
}

static void send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(to_relay, fmt, ap);
    va_end(ap);
    fputc('\n', to_relay);
    if (fflush(to_relay) != 0) tool_fail(3, "the relay is gone");
}

/* The result of an answer; a JSON-RPC error ends the process with its message. */
static const char *result_of(const char *answer) {
    const char *err = member(answer, "error");
    if (err) {
        const char *msg = member(err, "message");
        fputs("agentbox-sandboxd tool: ", stderr);
        if (msg && *msg == '"') put_string(msg, stderr);
        else fputs("the server answered with an error", stderr);
        fputc('\n', stderr);
        exit(3);
    }
    const char *r = member(answer, "result");
    if (!r) tool_fail(3, "an answer without a result");
    return r;
}

static void put_raw(const char *value) {
    const char *end = skip_value(value);
    if (!end) tool_fail(3, "a malformed answer");
    fwrite(value, 1, (size_t)(end - value), stdout);
    fputc('\n', stdout);
}

/* JSON text read from stdin or given, on one line (a raw newline is only whitespace in JSON). */
static char *arguments(const char *given) {
    char *buf;
    if (strcmp(given, "-") == 0) {
        buf = malloc(TOOL_MAX_ARGS + 1);
        if (!buf) tool_fail(3, "out of memory");
        size_t n = fread(buf, 1, TOOL_MAX_ARGS + 1, stdin);
        if (n > TOOL_MAX_ARGS) tool_fail(2, "arguments over 1 MiB");
        buf[n] = '\0';
    } else {
        buf = strdup(given);
        if (!buf) tool_fail(3, "out of memory");
    }
    for (char *p = buf; *p; p++) {
        if (*p == '\n' || *p == '\r') *p = ' ';
    }
    const char *end = skip_value(buf);
    if (*ws(buf) != '{' || !end || *ws(end) != '\0') tool_fail(2, "ARGS must be one JSON object");
    return buf;
}

static void start_relay(const char *dir) {
    int in[2], out[2];
    if (pipe(in) < 0 || pipe(out) < 0) tool_fail(3, "pipe");
    pid_t pid = fork();
    if (pid < 0) tool_fail(3, "fork");
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        _exit(mcp_relay(dir));
    }
    close(in[0]);
    close(out[1]);
    to_relay = fdopen(in[1], "w");
    from_relay = fdopen(out[0], "r");
    if (!to_relay || !from_relay) tool_fail(3, "fdopen");
}

static int usage(void) {
    fputs("usage: agentbox-sandboxd tool [--json] list | agentbox-sandboxd tool [--json] call NAME "
          "[ARGS|-]\n",
          stderr);
    return 2;
}

int tool_cli(int argc, char **argv) {
    int json = argc > 0 && strcmp(argv[0], "--json") == 0;
    argc -= json;
    argv += json;
    int list = argc == 1 && strcmp(argv[0], "list") == 0;
    int call = (argc == 2 || argc == 3) && strcmp(argv[0], "call") == 0;
    if (!list && !call) return usage();
    const char *dir = getenv("AGENTBOX_MCP_DIR");
    if (!dir || !*dir || !getenv("AGENTBOX_MCP_TOKEN")) {
        tool_fail(2, "this run has no tools (AGENTBOX_MCP_DIR and AGENTBOX_MCP_TOKEN are unset)");
    }
    char *args = call ? arguments(argc == 3 ? argv[2] : "{}") : NULL;
    /* The name goes into a JSON string: refuse what would need escaping (MCP names never do). */
    if (call && (strpbrk(argv[1], "\"\\") || strlen(argv[1]) > 128)) tool_fail(2, "a bad NAME");
    signal(SIGPIPE, SIG_IGN);
    start_relay(dir);

    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
              "\"clientInfo\":{\"name\":\"agentbox-tool\",\"version\":\"1\"}}}");
    char *init = answer_to(1);
    result_of(init);
    free(init);
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    if (list) {
        send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
    } else {
        send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                  "{\"name\":\"%s\",\"arguments\":%s}}",
                  argv[1], args);
    }
    char *answer = answer_to(2);
    const char *result = result_of(answer);
    int status = 0;
    if (json || list) {
        put_raw(result);
    } else {
        const char *content = member(result, "content");
        if (content && *content == '[') {
            const char *p = ws(content + 1);
            while (*p == '{') {
                const char *type = member(p, "type");
                const char *text = member(p, "text");
                if (type && strncmp(type, "\"text\"", 6) == 0 && text && *text == '"') {
                    put_string(text, stdout);
                }
                p = skip_value(p);
                if (!p) break;
                p = ws(p);
                if (*p == ',') p = ws(p + 1);
            }
            fputc('\n', stdout);
        }
    }
    const char *is_error = member(result, "isError");
    if (is_error && strncmp(is_error, "true", 4) == 0) {
        fputs("agentbox-sandboxd tool: error: the tool answered with an error\n", stderr);
        status = 1;
    }
    fflush(stdout);
    fclose(to_relay); /* the relay's stdin ends: it exits */
    int ws_status;
    wait(&ws_status);
    free(answer);
    free(args);
    return status;
}
