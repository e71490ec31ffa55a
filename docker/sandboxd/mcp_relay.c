/*
 * agentbox-sandboxd mcp DIR: the sandbox end of the tool bridge (docs/sandbox-channel.md, "The
 * tool bridge's mailbox").
 *
 * An agent's CLI starts this as its stdio MCP server. It understands nothing of MCP: it copies
 * each newline-delimited message from stdin into a file of the mailbox DIR, and copies the
 * answers the server writes into that mailbox to stdout, in the order the server numbered them.
 * The server that drives the run reads and writes the mailbox through the sandbox channel, so no
 * network is involved, and a call that waits survives the death of that server: this process and
 * the CLI go on waiting, and the server that takes the run over finds the mailbox as it was.
 *
 * Files, for a session named S (16 random hex digits, one per relay process):
 *   DIR/S.in       created exclusively; first line the token (AGENTBOX_MCP_TOKEN), then one line
 *                  per message from stdin, appended by this process only; when stdin ends, a
 *                  last line {"jsonrpc":"2.0","method":"agentbox/session-ended"}.
 *   DIR/S.out/N    the server's N-th outgoing message (N = 1, 2, 3, ...), each written whole by
 *                  the channel's atomic write (temp file + rename), copied to stdout in order.
 *   DIR/sessions   S appended once S.in holds the token (one short O_APPEND write: atomic).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define MCP_MAX_LINE (1024u * 1024u) /* a longer message is refused here, never forwarded */
#define MCP_KEEP_HEAD 4096u          /* of a refused line: where a leading "id" would be */
#define MCP_KEEP_TAIL 256u           /* ... and where a trailing "id" would be */
#define MCP_POLL_MS 250              /* answers are looked for this often even without inotify */
#define MCP_ENDED "{\"jsonrpc\":\"2.0\",\"method\":\"agentbox/session-ended\"}"

static char *mcp_dir;
static char mcp_session[17];
static int in_fd = -1;
static unsigned long next_seq = 1;

static int relay_write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static _Noreturn void relay_die(const char *what) {
    fprintf(stderr, "agentbox-sandboxd mcp: %s: %s\n", what, strerror(errno));
    exit(1);
}

static char *path_of(const char *suffix) {
    char *p;
    if (asprintf(&p, "%s/%s%s", mcp_dir, mcp_session, suffix) < 0) relay_die("asprintf");
    return p;
}

static void new_session_name(void) {
    unsigned char raw[8];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) relay_die("/dev/urandom");
    close(fd);
    for (size_t i = 0; i < sizeof raw; i++) sprintf(mcp_session + 2 * i, "%02x", raw[i]);
}

/* The id of a refused message, when it stands where JSON-RPC clients put it: first or last. */
static const char *scan_id(const char *p, size_t n, char *out, size_t cap) {
    const char key[] = "\"id\":";
    for (size_t i = 0; i + sizeof key - 1 < n; i++) {
        if (memcmp(p + i, key, sizeof key - 1) != 0) continue;
        size_t j = i + sizeof key - 1, k = j;
        while (k < n && p[k] == ' ') k++;
        j = k;
        if (k < n && p[k] == '"') {
            k++;
            while (k < n && p[k] != '"' && p[k] != '\\') k++;
            if (k >= n || p[k] != '"') continue;
            k++;
        } else {
            while (k < n && ((p[k] >= '0' && p[k] <= '9') || p[k] == '-')) k++;
        }
        if (k == j || k - j >= cap) continue;
        memcpy(out, p + j, k - j);
        out[k - j] = '\0';
        return out;
    }
    return NULL;
}

static void refuse_line(const char *head, size_t hn, const char *tail, size_t tn) {
    char id[80];
    const char *found = NULL;
    /* {"jsonrpc":"2.0","id":7,... puts it in the first few bytes; ...,"id":7} in the last ones. */
    if (hn > 0) found = scan_id(head, hn < 64 ? hn : 64, id, sizeof id);
    if (!found && tn > 0) {
        size_t from = tn > 48 ? tn - 48 : 0;
        found = scan_id(tail + from, tn - from, id, sizeof id);
    }
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32600,\"message\":"
                     "\"message over %u bytes refused by the agentbox relay\"}}\n",
                     found ? found : "null", MCP_MAX_LINE);
    /* An id is at most 79 bytes, so the message fits; were it cut, n would overstate it. */
    if (n < 0 || (size_t)n >= sizeof msg) exit(1);
    if (relay_write_all(1, msg, (size_t)n) < 0) exit(1);
}

/* The ring holds the line's last bytes, the oldest at pos % size once it has wrapped. */
static void refuse_ring(const char *head, size_t hn, const char *ring, size_t pos) {
    char tail[MCP_KEEP_TAIL];
    size_t n = pos < MCP_KEEP_TAIL ? pos : MCP_KEEP_TAIL;
    for (size_t i = 0; i < n; i++) tail[i] = ring[(pos - n + i) % MCP_KEEP_TAIL];
    refuse_line(head, hn, tail, n);
}

static void forward_line(const char *line, size_t n) {
    if (n == 0) return;
    /* One write per line: only this process appends to S.in, and a reader sees whole lines
     * once their newline is there. */
    char *buf = malloc(n + 1);
    if (!buf) relay_die("malloc");
    memcpy(buf, line, n);
    buf[n] = '\n';
    if (relay_write_all(in_fd, buf, n + 1) < 0) relay_die("append to the mailbox");
    free(buf);
}

/* Copies every answer that is there, in sequence order; stops at the first one missing. */
static void emit_answers(const char *out_dir) {
    static char buf[64 * 1024];
    for (;;) {
        char name[4096];
        /* A name cut short would never be found: the relay would wait forever in silence. */
        if ((size_t)snprintf(name, sizeof name, "%s/%lu", out_dir, next_seq) >= sizeof name) {
            errno = ENAMETOOLONG;
            relay_die(out_dir);
        }
        int fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            if (errno == ENOENT) return;
            relay_die(name);
        }
        char last = '\n';
        for (;;) {
            ssize_t r = read(fd, buf, sizeof buf);
            if (r < 0) {
                if (errno == EINTR) continue;
                relay_die(name);
            }
            if (r == 0) break;
            last = buf[r - 1];
            if (relay_write_all(1, buf, (size_t)r) < 0) exit(1); /* the client is gone */
        }
        close(fd);
        if (last != '\n' && relay_write_all(1, "\n", 1) < 0) exit(1);
        next_seq++;
    }
}

int mcp_relay(const char *dir) {
    signal(SIGPIPE, SIG_IGN); /* a client that left shows as EPIPE, and the relay exits */
    mcp_dir = strdup(dir);
    if (!mcp_dir) relay_die("strdup");
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) relay_die(dir);
    new_session_name();
    char *out_dir = path_of(".out");
    char *in_path = path_of(".in");
    if (mkdir(out_dir, 0700) < 0) relay_die(out_dir);
    in_fd = open(in_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (in_fd < 0) relay_die(in_path);
    const char *token = getenv("AGENTBOX_MCP_TOKEN");
    if (!token || strchr(token, '\n')) token = "";
    char *first;
    if (asprintf(&first, "%s\n", token) < 0) relay_die("asprintf");
    if (relay_write_all(in_fd, first, strlen(first)) < 0) relay_die(in_path);
    free(first);
    char *sessions;
    if (asprintf(&sessions, "%s/sessions", dir) < 0) relay_die("asprintf");
    int sfd = open(sessions, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    char line[sizeof mcp_session + 1];
    int ln = snprintf(line, sizeof line, "%s\n", mcp_session);
    if (sfd < 0 || relay_write_all(sfd, line, (size_t)ln) < 0) relay_die(sessions);
    close(sfd);
    free(sessions);
    free(in_path);

    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ino >= 0 && inotify_add_watch(ino, out_dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
        close(ino);
        ino = -1; /* the poll alone finds the answers, only later */
    }
    char *acc = malloc(MCP_MAX_LINE);
    if (!acc) relay_die("malloc");
    size_t len = 0, tail_pos = 0;
    int oversize = 0;
    char tail[MCP_KEEP_TAIL];
    static char buf[64 * 1024];
    for (;;) {
        emit_answers(out_dir);
        struct pollfd p[2] = {{0, POLLIN, 0}, {ino, POLLIN, 0}};
        int r = poll(p, ino >= 0 ? 2 : 1, MCP_POLL_MS);
        if (r < 0 && errno != EINTR) relay_die("poll");
        if (r <= 0) continue;
        if (ino >= 0 && p[1].revents) {
            static char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
            while (read(ino, events, sizeof events) > 0) {
            }
        }
        if (!p[0].revents) continue;
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            relay_die("stdin");
        }
        if (n == 0) { /* stdin ended: the client is done with this session */
            if (oversize) refuse_ring(acc, len, tail, tail_pos);
            else forward_line(acc, len);
            /* Tells the server the session is over, so it stops following it and its place
             * under the run's bound of sessions goes to the next one. */
            forward_line(MCP_ENDED, sizeof MCP_ENDED - 1);
            /* Freed although the process ends: a sanitizer build reports no leak. */
            free(acc);
            free(out_dir);
            free(mcp_dir);
            return 0;
        }
        for (ssize_t i = 0; i < n; i++) {
            char c = buf[i];
            if (c == '\n') {
                if (oversize) refuse_ring(acc, len, tail, tail_pos);
                else forward_line(acc, len);
                len = tail_pos = 0;
                oversize = 0;
                continue;
            }
            if (!oversize && len < MCP_MAX_LINE) {
                acc[len++] = c;
                continue;
            }
            if (!oversize) { /* keep the head for the id; drop the rest as it streams by */
                oversize = 1;
                len = MCP_KEEP_HEAD;
                tail_pos = 0;
            }
            tail[tail_pos++ % sizeof tail] = c; /* a ring: the last bytes of the line */
        }
    }
}
