/*
 * agentbox-sandboxd: the container end of the sandbox channel.
 *
 * The server reaches a sandbox through a Unix socket bind-mounted from a host directory instead
 * of paying a `docker exec` round trip for every command. docs/sandbox-channel.md specifies the
 * frames, the processes and the meaning of every request; this file implements that and no more.
 *
 * Processes:
 *   - `serve SOCKET` (a Unix socket) and `serve-tcp [ADDRESS:]PORT KEYFILE` (TCP, every
 *     connection authenticated with the sandbox's key first: auth.h) are a supervisor: it forks the server and forks it again when it dies, so a
 *     crash never leaves a sandbox without its channel for longer than 100 ms (a server that
 *     keeps failing to start is retried less and less often, down to every 5 s).
 *   - The server accepts connections and forks one handler per connection.
 *   - A handler serves exactly one request and exits. One process per request keeps requests
 *     isolated: a handler stuck on a silent client, or one that crashes, costs the others nothing,
 *     and exit(2) frees whatever it held.
 *
 * Static and libc-only, because it must run unchanged in any image (Debian, BusyBox, ...).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "frame.h"

#define CHUNK (64u * 1024u)         /* largest O, E and D frame the helper sends */
#define HELLO_TIMEOUT_S 10          /* (TCP: authentication +) hello + request within this */
#define RESTART_INTERVAL_MS 100     /* the supervisor restarts the server at most this often */
#define RESTART_MAX_MS 5000         /* ... backing off to this while it keeps dying young */
#define SERVER_YOUNG_MS 1000        /* a server that dies younger than this failed to start */
#define FOLLOW_POLL_MS 250          /* follow re-reads the file this often even without inotify */
#define LOG_QUIET_MS 10000          /* a server failing in a loop is logged once per this */

extern char **environ;

int mcp_relay(const char *dir); /* mcp_relay.c: the tool bridge's relay, `mcp DIR` */
int tool_cli(int argc, char **argv); /* tool_cli.c: `tool list|call` for command agents */
int acp_feed(const char *dir); /* acp_feed.c: an ACP agent's stdin from files, `acp-feed DIR` */

/* ------------------------------------------------------------------------------------------ */
/* Small utilities                                                                             */
/* ------------------------------------------------------------------------------------------ */

static int log_quiet; /* set by the supervisor for a server it restarts in a tight loop */

static void logmsg(const char *fmt, ...) {
    if (log_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("agentbox-sandboxd: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* write(2) until done: pipes and files may take less than asked, and signals interrupt. */
static int write_all(int fd, const char *p, size_t n) {
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

/* ------------------------------------------------------------------------------------------ */
/* Frames (handler side)                                                                       */
/* ------------------------------------------------------------------------------------------ */

static int conn = -1;        /* the handler's connection */
static char *temp_path;      /* a write's temp file, removed if the handler ends early */
/* The pid file of an exec whose command was reaped: removed as the handler ends, after its C
 * frame has left (nothing may be killed by that name any more: the pid could be reused). */
static const char *reaped_pidfile;
static char payload[MAX_PAYLOAD + 1]; /* the last frame read by read_frame (+1: room for a NUL) */

/*
 * Ends the handler. Whatever the reason (answered, client gone, protocol error), the connection
 * closes with the process; only a half-written temp file would outlive it, so remove that.
 */
static _Noreturn void quit(void) {
    if (temp_path) unlink(temp_path);
    if (reaped_pidfile) unlink(reaped_pidfile);
    _exit(0);
}

/*
 * Sends one frame, blocking until the client has taken it. MSG_NOSIGNAL: a client that went
 * away must end this handler, not kill it with SIGPIPE halfway through cleanup.
 */
static void send_frame(char type, const void *data, size_t len) {
    unsigned char head[5] = {(unsigned char)type, (unsigned char)(len >> 24),
                             (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                             (unsigned char)len};
    struct iovec iov[2] = {{head, sizeof head}, {(void *)data, len}};
    struct msghdr msg = {0};
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    while (msg.msg_iovlen > 0) {
        ssize_t n = sendmsg(conn, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            quit(); /* the client is gone: nobody is left to answer */
        }
        size_t k = (size_t)n;
        while (msg.msg_iovlen > 0 && k >= msg.msg_iov[0].iov_len) {
            k -= msg.msg_iov[0].iov_len;
            msg.msg_iov++;
            msg.msg_iovlen--;
        }
        if (msg.msg_iovlen > 0) {
            msg.msg_iov[0].iov_base = (char *)msg.msg_iov[0].iov_base + k;
            msg.msg_iov[0].iov_len -= k;
        }
    }
}

static _Noreturn void fail(const char *code, const char *message) {
    char buf[512];
    size_t c = strlen(code), m = strnlen(message, sizeof buf - c - 1);
    memcpy(buf, code, c);
    buf[c] = '\0';
    memcpy(buf + c + 1, message, m);
    send_frame('F', buf, c + 1 + m);
    quit();
}

/* The codes the server tells apart; everything else is EIO with its strerror. */
static _Noreturn void fail_errno(int e) {
    const char *code;
    switch (e) {
    case ENOENT: code = "ENOENT"; break;
    case ENOTDIR: code = "ENOTDIR"; break;
    case EISDIR: code = "EISDIR"; break;
    case EACCES:
    case EPERM: code = "EACCES"; break; /* both are "not allowed"; the message says which */
    case EEXIST: code = "EEXIST"; break;
    case EXDEV: code = "EXDEV"; break;
    default: code = "EIO"; break;
    }
    fail(code, strerror(e));
}

static _Noreturn void protocol_error(const char *why) { fail("EPROTO", why); }

static _Noreturn void done(int status) {
    char buf[16];
    int n = snprintf(buf, sizeof buf, "%d", status);
    send_frame('C', buf, (size_t)n);
    quit();
}

static void send_stat(const struct stat *st) {
    char buf[64]; /* as `stat -c '%f %s'` */
    int n = snprintf(buf, sizeof buf, "%x %lld", (unsigned)st->st_mode, (long long)st->st_size);
    send_frame('T', buf, (size_t)n);
}

/* Reads exactly n bytes; a client that closes or fails mid-frame simply ends the handler. */
static void recv_all(void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t r = recv(conn, p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) quit();
        p += r;
        n -= (size_t)r;
    }
}

/* Reads one whole frame into payload[] (NUL-terminated there for convenience). */
static size_t read_frame(char *type) {
    unsigned char head[FRAME_HEAD];
    recv_all(head, sizeof head);
    /* Checked before reading the payload: a bogus length must not make us wait for 4 GiB. */
    frame_error why = check_head(head);
    if (why) protocol_error(why);
    uint32_t len = frame_length(head);
    recv_all(payload, len);
    payload[len] = '\0';
    *type = (char)head[0];
    return len;
}

/* ------------------------------------------------------------------------------------------ */
/* Request fields                                                                              */
/* ------------------------------------------------------------------------------------------ */

/* The request in payload[0, len) of the given type, checked (frame.c), or EPROTO. */
static struct request parse(char type, size_t len) {
    if (!request_type(type)) protocol_error("expected a request");
    size_t n;
    frame_error why = count_fields(payload, len, &n);
    if (why) protocol_error(why);
    char **f = malloc((n + 1) * sizeof *f);
    if (!f) fail_errno(ENOMEM);
    split_fields(payload, len, f);
    struct request r;
    why = parse_request(type, f, n, &r);
    if (why) protocol_error(why);
    return r; /* f stays allocated: r points into it; the handler's exit frees it */
}

/* ------------------------------------------------------------------------------------------ */
/* File system helpers                                                                         */
/* ------------------------------------------------------------------------------------------ */

/*
 * mkdir -p: creates each missing component. An existing component is fine when it is a
 * directory or a symlink to one (mkdir -p follows them). Returns 0 or an errno: EEXIST when the
 * path itself is something else, ENOTDIR when a parent is.
 */
static int mkdir_p(const char *path, mode_t mode) {
    if (*path == '\0') return ENOENT;
    char *p = strdup(path);
    if (!p) return ENOMEM;
    int result = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0') continue;
        char c = *s;
        *s = '\0';
        if (s[-1] != '/' && mkdir(p, mode) < 0) { /* s[-1] == '/': an empty component, "a//b" */
            struct stat st;
            if (errno != EEXIST) {
                result = errno;
                break;
            }
            if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
                result = c ? ENOTDIR : EEXIST;
                break;
            }
        }
        *s = c;
        if (c == '\0') break;
    }
    free(p);
    return result;
}

/* The directory holding path ("." for a bare name), as dirname(1) would say. */
static char *parent_of(const char *path) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    while (n > 0 && path[n - 1] != '/') n--;
    if (n == 0) return strdup(".");
    while (n > 1 && path[n - 1] == '/') n--;
    return strndup(path, n);
}

static void check_regular(const struct stat *st) {
    if (S_ISDIR(st->st_mode)) fail("EISDIR", strerror(EISDIR));
    if (!S_ISREG(st->st_mode)) {
        char mode[16];
        snprintf(mode, sizeof mode, "%x", (unsigned)st->st_mode);
        fail("ENOTREG", mode);
    }
}

/*
 * Opens a regular file for reading, following symlinks, or answers F. stat(2) first so that a
 * device node is never even opened; O_NONBLOCK so that a FIFO swapped in between the stat and the
 * open cannot stall the handler (its open returns at once); fstat(2) after, to catch that swap.
 */
static int open_regular(const char *path, struct stat *st) {
    if (stat(path, st) < 0) fail_errno(errno);
    check_regular(st);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) fail_errno(errno);
    if (fstat(fd, st) < 0) fail_errno(errno);
    check_regular(st);
    return fd;
}

/* ------------------------------------------------------------------------------------------ */
/* exec (X)                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/*
 * The environment of the command: the helper's (the container's), overridden by the request's
 * KEY=VALUE entries. A request entry also loses to a later one with the same key.
 */
static char **build_env(char **vars, size_t n) {
    size_t base = 0;
    while (environ[base]) base++;
    char **env = malloc((base + n + 1) * sizeof *env);
    if (!env) fail_errno(ENOMEM);
    size_t k = 0;
    for (size_t i = 0; i < base + n; i++) {
        char *e = i < base ? environ[i] : vars[i - base];
        size_t key = strcspn(e, "=");
        int overridden = 0;
        for (size_t j = (i < base ? 0 : i - base + 1); j < n && !overridden; j++)
            overridden = strncmp(vars[j], e, key + 1) == 0;
        if (!overridden) env[k++] = e;
    }
    env[k] = NULL;
    return env;
}

/*
 * The command is started with vfork(2): the child borrows the handler's memory until it execs,
 * so no page table is copied and no page faults in copy-on-write afterwards — measured, that is a
 * quarter of what starting a short command costs in a small VM. The price is that everything from
 * vfork to execve may only make system calls and write to its own stack: no malloc, no stdio, no
 * write to a global (errno excepted, which the parent does not read across the vfork). The
 * handler catches no signal (every disposition is default or ignored), and all signals are blocked
 * across the vfork anyway, so no handler can run on the borrowed memory either.
 */

/*
 * The signals a command would inherit as ignored: the server's ignored set, taken once at its
 * start, after its own SIG_IGN for SIGCHLD and SIGPIPE (a handler ignores no other). Caught
 * signals need no reset (execve makes them default); only SIG_IGN survives it. One sigaction per
 * entry instead of one per signal keeps some sixty system calls off every command's start.
 */
static int ignored_signals[NSIG];
static int n_ignored;

static void note_ignored(void) {
    for (int s = 1; s < NSIG; s++) {
        struct sigaction old;
        if (sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            ignored_signals[n_ignored++] = s;
    }
}

/* Writes the NULL-terminated parts (at most 8) to fd 2 in one call, with no buffer of its own. */
static void child_say(const char *const *parts) {
    struct iovec v[8];
    int n = 0;
    for (; n < 8 && parts[n]; n++) v[n] = (struct iovec){(void *)parts[n], strlen(parts[n])};
    ssize_t written = writev(2, v, n); /* nothing to do if stderr is gone */
    (void)written;
}

/*
 * execvp(3) with the command's own environment: argv[0] as given when it holds a '/', else looked
 * up on env's PATH (the C library's default when there is none). Returns only on failure, with
 * errno as execvp leaves it: EACCES if some candidate was not executable, else the last error.
 */
static void exec_on_path(char **argv, char **env) {
    if (strchr(argv[0], '/')) {
        execve(argv[0], argv, env);
        return;
    }
    const char *path = "/bin:/usr/bin";
    for (char **e = env; *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
    size_t name = strlen(argv[0]);
    int denied = 0;
    char buf[PATH_MAX];
    for (const char *d = path;; d++) {
        const char *end = strchrnul(d, ':');
        size_t len = (size_t)(end - d);
        if (len + 1 + name + 1 <= sizeof buf) {
            if (len == 0) { /* an empty entry is the working directory */
                memcpy(buf, argv[0], name + 1);
            } else {
                memcpy(buf, d, len);
                buf[len] = '/';
                memcpy(buf + len + 1, argv[0], name + 1);
            }
            execve(buf, argv, env);
            if (errno == EACCES) denied = 1;
            else if (errno != ENOENT && errno != ENOTDIR) return;
        }
        if (*end == '\0') break;
        d = end;
    }
    if (denied) errno = EACCES;
}

/*
 * strerror(3) for the vfork child, which may not call it: glibc's strerror translates through
 * the locale and may allocate (not async-signal-safe, and the memory is the handler's). The
 * texts are glibc's, for the errors chdir and execve report; any other is "error N", formatted
 * into the caller's buffer (the child's stack).
 */
static const char *child_strerror(int e, char buf[24]) {
    switch (e) {
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case EIO: return "Input/output error";
    case E2BIG: return "Argument list too long";
    case ENOEXEC: return "Exec format error";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EFAULT: return "Bad address";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case EINVAL: return "Invalid argument";
    case ENFILE: return "Too many open files in system";
    case EMFILE: return "Too many open files";
    case ETXTBSY: return "Text file busy";
    case ENAMETOOLONG: return "File name too long";
    case ELOOP: return "Too many levels of symbolic links";
    case ELIBBAD: return "Accessing a corrupted shared library";
    default: break;
    }
    char *d = buf + 23;
    *d = '\0';
    unsigned v = e < 0 ? 0u : (unsigned)e;
    do *--d = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    static const char prefix[] = "error ";
    d -= sizeof prefix - 1;
    memcpy(d, prefix, sizeof prefix - 1);
    return d;
}

/* The command's process, between vfork and exec (see above: system calls and its stack only). */
static _Noreturn void exec_child(const char *cwd, const char *pidfile, char **argv, char **env,
                                 int in, int out, int err) {
    setsid(); /* leads its own process group, as a docker exec does: S and timeouts hit the group */
    /*
     * The pid file names the group to whoever kills it later, from any connection. Written here,
     * after setsid: once the file exists, the group it names exists too. (Its folder was made by
     * the parent.)
     */
    if (*pidfile) {
        int pf = open(pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (pf < 0) _exit(126);
        char digits[24];
        char *d = digits + sizeof digits;
        *--d = '\n';
        for (unsigned long v = (unsigned long)getpid(); d == digits + sizeof digits - 1 || v;
             v /= 10)
            *--d = (char)('0' + v % 10);
        ssize_t written = write(pf, d, (size_t)(digits + sizeof digits - d));
        (void)written;
        close(pf);
    }
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    /*
     * A docker exec starts with default signal handling. Ignored dispositions (the handler
     * ignores SIGPIPE) and the blocked mask survive execve: undo them, or a command writing to a
     * closed pipe would spin on EPIPE instead of dying as it should.
     */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int i = 0; i < n_ignored; i++) sigaction(ignored_signals[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* An empty cwd keeps the container's working directory, as an empty WorkingDir does. */
    char text[24];
    if (*cwd && chdir(cwd) < 0) {
        child_say((const char *[]){"agentbox-sandboxd: chdir to cwd (", cwd, "): ",
                                   child_strerror(errno, text), "\n", NULL});
        _exit(126);
    }
    exec_on_path(argv, env);
    int e = errno;
    child_say((const char *[]){"agentbox-sandboxd: exec ", argv[0], ": ", child_strerror(e, text),
                               "\n", NULL});
    _exit(e == ENOENT ? 127 : 126);
}

/* The state of a running exec, shared by the loop and the frame handler. */
static struct {
    pid_t pid;
    int in_fd;        /* write end of the stdin pipe; -1 for /dev/null, after Z or EPIPE */
    size_t in_len;    /* queued stdin bytes (one I frame), not yet taken by the command */
    size_t in_off;
    unsigned char rbuf[MAX_PAYLOAD + FRAME_HEAD]; /* frames from the client, possibly partial */
    size_t rlen;
    char inbuf[MAX_PAYLOAD];
} x;

static void close_stdin(void) {
    if (x.in_fd >= 0) close(x.in_fd);
    x.in_fd = -1;
    x.in_len = x.in_off = 0;
}

/* Writes queued stdin without blocking: a command that reads slowly must not stop the handler
 * from draining its stdout, or both would wait on each other. */
static void flush_stdin(void) {
    while (x.in_len > x.in_off) {
        ssize_t w = write(x.in_fd, x.inbuf + x.in_off, x.in_len - x.in_off);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) return;
            close_stdin(); /* EPIPE: the command closed its stdin; the rest has nowhere to go */
            return;
        }
        x.in_off += (size_t)w;
    }
    x.in_len = x.in_off = 0;
}

/*
 * Handles the next complete frame in rbuf, if any (returns 0 when there is none). While stdin
 * bytes are queued no further frame is taken: that is the backpressure that keeps the queue at
 * one frame, and since the stream is ordered, an S or Z behind an I waits for that I as it must.
 */
static int next_frame(void) {
    if (x.in_len > 0) return 0;
    char type;
    const unsigned char *p;
    uint32_t len;
    frame_error why;
    int got = frame_next(x.rbuf, x.rlen, &type, &p, &len, &why);
    if (got < 0) protocol_error(why);
    if (got == 0) return 0;
    if (type == 'I') {
        if (x.in_fd >= 0 && len > 0) { /* else stdin is /dev/null or closed: dropped */
            memcpy(x.inbuf, p, len);
            x.in_len = len;
            x.in_off = 0;
        }
    } else if (type == 'Z') {
        if (x.in_fd >= 0) close_stdin();
    } else if (type == 'S') {
        int sig;
        if ((why = parse_signal(p, len, &sig)) != NULL) protocol_error(why);
        kill(-x.pid, sig); /* ESRCH: the whole group is gone already, nothing to signal */
    } else {
        protocol_error("only I, Z and S may follow an exec");
    }
    x.rlen -= FRAME_HEAD + (size_t)len;
    memmove(x.rbuf, x.rbuf + FRAME_HEAD + len, x.rlen);
    return 1;
}

/* Reads one chunk of the command's stdout or stderr and forwards it; closes the pipe at EOF. */
static void forward(int *fd, char type) {
    static char buf[CHUNK];
    ssize_t r = read(*fd, buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (r <= 0) {
        close(*fd);
        *fd = -1;
        return;
    }
    send_frame(type, buf, (size_t)r);
}

static _Noreturn void do_exec(const struct request *rq) {
    uint64_t timeout_ms = rq->num;
    const char *cwd = rq->cwd, *pidfile = rq->pidfile;
    int stdin_pipe = rq->stdin_pipe;
    char **argv = malloc((rq->argc + 1) * sizeof *argv);
    if (!argv) fail_errno(ENOMEM);
    memcpy(argv, rq->argv, rq->argc * sizeof *argv);
    argv[rq->argc] = NULL;
    char **env = build_env(rq->vars, rq->envc);

    int out[2], err[2], in[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) fail_errno(errno);
    if (stdin_pipe) {
        if (pipe2(in, O_CLOEXEC) < 0) fail_errno(errno);
    } else if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        /* No /dev/null in this image: a pipe with no writer reads as empty all the same. */
        if (pipe2(in, O_CLOEXEC) < 0) fail_errno(errno);
        close(in[1]);
        in[1] = -1;
    }
    /*
     * The child's exit is watched through a signalfd so that one poll(2) covers it along with
     * the pipes and the socket. SIGCHLD is blocked before the fork so that an exit that comes
     * early is still pending (and readable) when we first look.
     */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) fail_errno(errno);

    if (*pidfile) { /* the child may not allocate: its folder is made here */
        char *dir = strdup(pidfile);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        struct stat st;
        if (slash && slash != dir) {
            *slash = 0;
            /* One stat in the usual case (it exists); mkdir -p's walk only the first time. */
            if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) mkdir_p(dir, 0755);
        }
        free(dir);
    }
    sigset_t all, before;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &before);
    x.pid = vfork();
    if (x.pid == 0) exec_child(cwd, pidfile, argv, env, in[0], out[1], err[1]);
    int forked = errno;
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (x.pid < 0) fail_errno(forked);
    close(out[1]);
    close(err[1]);
    close(in[0]);
    int out_fd = out[0], err_fd = err[0];
    x.in_fd = in[1];
    fcntl(out_fd, F_SETFL, O_NONBLOCK);
    fcntl(err_fd, F_SETFL, O_NONBLOCK);
    if (x.in_fd >= 0) fcntl(x.in_fd, F_SETFL, O_NONBLOCK);

    int reaped = 0, status = 0, killed = 0;
    int64_t deadline = timeout_ms ? now_ms() + (int64_t)timeout_ms : 0;
    for (;;) {
        while (next_frame()) flush_stdin();
        /* C only when the command is reaped and both pipes are at EOF: a background process
         * still holding them keeps the exec open, as with docker exec. */
        if (reaped && out_fd < 0 && err_fd < 0) break;

        struct pollfd p[5];
        int np = 0, i_conn = -1, i_out = -1, i_err = -1, i_in = -1, i_sig = -1;
        p[i_conn = np++] = (struct pollfd){conn, x.in_len > 0 ? 0 : POLLIN, 0};
        if (out_fd >= 0) p[i_out = np++] = (struct pollfd){out_fd, POLLIN, 0};
        if (err_fd >= 0) p[i_err = np++] = (struct pollfd){err_fd, POLLIN, 0};
        if (x.in_len > 0) p[i_in = np++] = (struct pollfd){x.in_fd, POLLOUT, 0};
        if (!reaped) p[i_sig = np++] = (struct pollfd){sfd, POLLIN, 0};
        int timeout = -1;
        if (deadline && !killed) {
            int64_t left = deadline - now_ms();
            timeout = left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
        }
        int r = poll(p, (nfds_t)np, timeout);
        if (r < 0) {
            if (errno == EINTR) continue;
            fail_errno(errno);
        }
        if (deadline && !killed && now_ms() >= deadline) {
            kill(-x.pid, SIGKILL);
            killed = 1;
        }
        if (i_sig >= 0 && p[i_sig].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) > 0) {
            }
            int st;
            if (waitpid(x.pid, &st, WNOHANG) == x.pid) {
                reaped = 1;
                /* The group's leader is gone: its pid file goes as the handler ends, once the
                 * answer is out. Left in place when the handler quits before the reap: the
                 * server still needs it to kill what it abandoned. */
                if (*pidfile) reaped_pidfile = pidfile;
                status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
        }
        if (i_out >= 0 && p[i_out].revents) forward(&out_fd, 'O');
        if (i_err >= 0 && p[i_err].revents) forward(&err_fd, 'E');
        if (i_in >= 0 && p[i_in].revents) flush_stdin();
        short cr = p[i_conn].revents;
        if (cr & (POLLHUP | POLLERR)) quit(); /* client gone: pipes close with us, no signal */
        if (cr & POLLIN) {
            ssize_t got = recv(conn, x.rbuf + x.rlen, sizeof x.rbuf - x.rlen, 0);
            if (got < 0 && errno != EINTR) quit();
            if (got == 0) quit();
            if (got > 0) x.rlen += (size_t)got;
        }
    }
    close_stdin();
    done(status);
}

/* ------------------------------------------------------------------------------------------ */
/* The other requests                                                                          */
/* ------------------------------------------------------------------------------------------ */

static _Noreturn void do_read(const struct request *rq) {
    uint64_t max = rq->num;
    struct stat st;
    int fd = open_regular(rq->path, &st);
    send_stat(&st);
    /* One byte more than max: if it comes, the server knows the file outgrew its limit. */
    uint64_t left = max + 1;
    static char buf[CHUNK];
    while (left > 0) {
        ssize_t r = read(fd, buf, left < CHUNK ? (size_t)left : CHUNK);
        if (r < 0) {
            if (errno == EINTR) continue;
            fail_errno(errno);
        }
        if (r == 0) break;
        send_frame('D', buf, (size_t)r);
        left -= (uint64_t)r;
    }
    done(0);
}

/*
 * Write: the bytes go to a temp file beside the target, which is renamed over it, so a reader
 * never sees half a file and a symlink at the path is replaced rather than followed. On an error
 * the remaining D frames are still read (and dropped) up to Z, so that the client, which sends
 * all of them before it reads, always finds the answer after its Z.
 */
static _Noreturn void do_write(const struct request *rq) {
    mode_t mode = (mode_t)rq->num;
    char *path = strdup(rq->path); /* rq->path points into payload[], which D frames overwrite */
    if (!path) fail_errno(ENOMEM);
    char *dir = parent_of(path);
    if (!dir) fail_errno(ENOMEM);
    int err = 0, fd = -1;
    size_t plen = strlen(path);
    static const char temp_name[] = "/.agentbox-sandboxd.XXXXXX";
    size_t tmp_size = strlen(dir) + sizeof temp_name;
    char *tmp = malloc(tmp_size);
    if (!tmp) fail_errno(ENOMEM);
    snprintf(tmp, tmp_size, "%s%s", dir, temp_name);
    if (plen == 0) err = ENOENT;
    else if (path[plen - 1] == '/') err = EISDIR; /* names a directory, never a file */
    else err = mkdir_p(dir, 0755);
    if (!err) {
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) err = errno;
        else temp_path = tmp;
    }
    for (;;) {
        char type;
        size_t len = read_frame(&type);
        if (type == 'Z') break;
        if (type != 'D') protocol_error("only D and Z may follow a write");
        if (!err && write_all(fd, payload, len) < 0) err = errno;
    }
    if (!err && fchmod(fd, mode) < 0) err = errno; /* exact mode, whatever the umask */
    if (fd >= 0 && close(fd) < 0 && !err) err = errno;
    if (!err && rename(tmp, path) < 0) err = errno;
    if (err) fail_errno(err); /* quit() removes the temp file */
    temp_path = NULL;
    done(0);
}

/* stat: the answer is T alone (no C), or F. */
static _Noreturn void do_stat(const struct request *rq) {
    struct stat st;
    if ((rq->follow ? stat(rq->path, &st) : lstat(rq->path, &st)) < 0) fail_errno(errno);
    send_stat(&st);
    quit();
}

static _Noreturn void do_list(const struct request *rq) {
    DIR *d = opendir(rq->path);
    if (!d) fail_errno(errno);
    static char buf[CHUNK];
    size_t used = 0;
    struct dirent *e;
    for (errno = 0; (e = readdir(d)) != NULL; errno = 0) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        /* d_type is the entry itself, never a symlink's target: a link to a directory is f. */
        int is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) { /* some file systems leave it to us */
            struct stat st;
            is_dir = fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        }
        size_t len = strlen(name);
        if (used + len + 3 > sizeof buf) {
            send_frame('D', buf, used);
            used = 0;
        }
        buf[used++] = is_dir ? 'd' : 'f';
        buf[used++] = '/';
        memcpy(buf + used, name, len + 1);
        used += len + 1;
    }
    if (errno) fail_errno(errno);
    if (used > 0) send_frame('D', buf, used);
    done(0);
}

static _Noreturn void do_mkdir(const struct request *rq) {
    int err = mkdir_p(rq->path, 0777); /* as mkdir -p: the umask decides */
    if (err) fail_errno(err);
    done(0);
}

static _Noreturn void do_move(const struct request *rq) {
    struct stat st;
    /* A missing source must fail before the target's parent is created for nothing. */
    if (lstat(rq->path, &st) < 0) fail_errno(errno);
    char *dir = parent_of(rq->to);
    if (!dir) fail_errno(ENOMEM);
    int err = mkdir_p(dir, 0755);
    if (err) fail_errno(err);
    if (rename(rq->path, rq->to) < 0) fail_errno(errno); /* EXDEV: the server falls back to mv */
    done(0);
}

static int remove_error; /* the first failure of the walk; rm -rf goes on after one */

static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)ftw;
    int r = (flag == FTW_DP || flag == FTW_DNR) ? rmdir(p) : unlink(p);
    if (r < 0 && errno != ENOENT && !remove_error) remove_error = errno;
    return 0;
}

static _Noreturn void do_remove(const struct request *rq) {
    /* FTW_PHYS: symlinks are removed, never followed; FTW_DEPTH: contents before their dir. */
    if (nftw(rq->path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
        fail_errno(errno);
    if (remove_error) fail_errno(remove_error);
    done(0); /* a missing path is success, as with rm -rf */
}

/*
 * Follow: streams the file from offset on, then each addition as it is written. inotify wakes us
 * at once; the 250 ms poll covers what inotify misses (no instance left: the per-user limit is
 * small, or a file system that does not report). The watch is set on /proc/self/fd/N, i.e. on
 * the very file opened, not on whatever the path names later. Any byte from the client, or its
 * closing, ends the follow.
 */
static _Noreturn void do_follow(const struct request *rq) {
    off_t pos = (off_t)rq->num;
    struct stat st;
    int fd = open_regular(rq->path, &st);
    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ino >= 0) {
        char self[64];
        uint32_t mask = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF;
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        if (inotify_add_watch(ino, self, mask) < 0 && inotify_add_watch(ino, rq->path, mask) < 0) {
            close(ino);
            ino = -1;
        }
    }
    static char buf[CHUNK];
    for (;;) {
        for (;;) {
            ssize_t r = pread(fd, buf, sizeof buf, pos);
            if (r < 0) {
                if (errno == EINTR) continue;
                fail_errno(errno);
            }
            if (r == 0) break;
            send_frame('D', buf, (size_t)r);
            pos += r;
        }
        struct pollfd p[2] = {{conn, POLLIN, 0}, {ino, POLLIN, 0}};
        int r = poll(p, ino >= 0 ? 2 : 1, FOLLOW_POLL_MS);
        if (r < 0 && errno != EINTR) fail_errno(errno);
        if (r <= 0) continue;
        if (p[0].revents) quit();
        if (ino >= 0 && p[1].revents) {
            static char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
            while (read(ino, events, sizeof events) > 0) {
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Handler, server, supervisor                                                                 */
/* ------------------------------------------------------------------------------------------ */

/*
 * serve-tcp: the sandbox's key, read once before the supervisor starts (so a key file replaced
 * later changes nothing until a restart of the container). serve: unused.
 */
static unsigned char auth_key[AUTH_KEY];
static int auth_required;

/* n bytes from the kernel's CSPRNG; getrandom(2) blocks only until it is seeded at boot. */
static int random_bytes(unsigned char *buf, size_t n) {
    while (n > 0) {
        ssize_t r = getrandom(buf, n, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        buf += r;
        n -= (size_t)r;
    }
    return 0;
}

/*
 * The challenge-response of auth.h, before anything else on a TCP connection. Any fault (the
 * client silent until the alarm, a frame of another type or length, a wrong MAC, the client
 * gone) ends the handler without a word: an unauthenticated peer learns nothing, not even why.
 * Guards against:
 *   - a peer without the key (another pod, a scan): it cannot compute the MAC;
 *   - a replayed answer captured from another connection: nonce_h is fresh for every connection;
 *   - an oversized or bogus frame: the header is checked for type A and exactly AUTH_ANSWER
 *     bytes before a payload byte is read.
 */
static void authenticate(void) {
    unsigned char nonces[2 * AUTH_NONCE]; /* nonce_h || nonce_c */
    if (random_bytes(nonces, AUTH_NONCE) < 0) {
        logmsg("getrandom: %s", strerror(errno));
        quit();
    }
    send_frame(AUTH_CHALLENGE_TYPE, nonces, AUTH_NONCE);
    unsigned char head[FRAME_HEAD], answer[AUTH_ANSWER], mac[AUTH_MAC];
    recv_all(head, sizeof head);
    if (!auth_answer_head_ok(head)) quit();
    recv_all(answer, sizeof answer);
    auth_client_mac(auth_key, nonces, mac);
    if (!auth_equal(mac, answer, AUTH_MAC)) quit();
    memcpy(nonces + AUTH_NONCE, answer + AUTH_MAC, AUTH_NONCE);
    auth_helper_mac(auth_key, nonces, mac);
    send_frame(AUTH_ANSWER_TYPE, mac, AUTH_MAC);
}

static _Noreturn void handle(int c) {
    conn = c;
    /* The server ignores SIGCHLD (no zombies); an exec needs its child's status, so undo that.
     * SIGPIPE stays ignored: a client that left must make writes fail, not kill us. */
    signal(SIGCHLD, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, SIG_DFL); /* the default action ends the handler, closing the connection */
    alarm(HELLO_TIMEOUT_S);
    if (auth_required) authenticate();

    char type;
    size_t len = read_frame(&type);
    if (type != 'H') protocol_error("expected hello");
    if (!hello_ok((const unsigned char *)payload, len))
        fail("EVERSION", "this helper speaks " VERSION);
    send_frame('H', payload, len);

    len = read_frame(&type);
    alarm(0); /* the request has arrived: from now on it takes as long as it takes */
    struct request rq = parse(type, len);
    switch (type) {
    case 'X': do_exec(&rq);
    case 'R': do_read(&rq);
    case 'W': do_write(&rq);
    case 'P': do_stat(&rq);
    case 'L': do_list(&rq);
    case 'M': do_mkdir(&rq);
    case 'V': do_move(&rq);
    case 'K': do_remove(&rq);
    case 'G': do_follow(&rq);
    default: protocol_error("expected a request"); /* not reached: parse() refused it */
    }
}

/* Where the server listens: a Unix socket (serve), or a TCP address (serve-tcp). */
struct listener {
    const char *socket_path;     /* serve; NULL for TCP */
    struct sockaddr_storage tcp; /* serve-tcp: the address to bind, port included */
    socklen_t tcp_len;
};

static int listen_unix(const char *path) {
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) return -1;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, path); /* length checked by main */
    if (unlink(path) < 0 && errno != ENOENT) logmsg("unlink %s: %s", path, strerror(errno));
    /* The umask closes the window between bind and chmod in which others could connect. */
    mode_t old = umask(0177);
    int b = bind(lfd, (struct sockaddr *)&addr, sizeof addr);
    umask(old);
    if (b < 0 || chmod(path, 0600) < 0 || listen(lfd, SOMAXCONN) < 0) return -1;
    return lfd;
}

static int listen_tcp(const struct listener *l) {
    int lfd = socket(l->tcp.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) return -1;
    int one = 1, zero = 0;
    /* A server restarted by the supervisor must rebind at once, not after TIME_WAIT. */
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* The IPv6 wildcard also takes IPv4 (a pod may have either address family). */
    if (l->tcp.ss_family == AF_INET6) setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(lfd, (const struct sockaddr *)&l->tcp, l->tcp_len) < 0 ||
        listen(lfd, SOMAXCONN) < 0)
        return -1;
    return lfd;
}

/*
 * Options of an accepted TCP connection. NODELAY: frames are small and answered at once.
 * KEEPALIVE, probing after 30 s idle every 10 s, 3 times: a replica that vanished (its node
 * died) never closes its end, and a handler following a file for it would otherwise wait on the
 * half-open connection for as long as the kernel retransmits into the void.
 */
static void tcp_options(int c) {
    int one = 1, idle = 30, interval = 10, count = 3;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(c, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    setsockopt(c, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(c, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    setsockopt(c, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

static _Noreturn void run_server(const struct listener *l) {
    signal(SIGCHLD, SIG_IGN); /* handlers are reaped by the kernel: no zombies, no bookkeeping */
    signal(SIGPIPE, SIG_IGN);
    note_ignored();
    int lfd = l->socket_path ? listen_unix(l->socket_path) : listen_tcp(l);
    if (lfd < 0) {
        logmsg("listen on %s: %s", l->socket_path ? l->socket_path : "TCP", strerror(errno));
        _exit(1);
    }
    log_quiet = 0;
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            logmsg("accept: %s", strerror(errno));
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                poll(NULL, 0, 50); /* resources run out: wait for handlers to exit */
                continue;
            }
            _exit(1); /* the supervisor starts a fresh server */
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(lfd);
            if (!l->socket_path) tcp_options(c);
            handle(c);
        }
        if (pid < 0) logmsg("fork: %s", strerror(errno)); /* the client sees EOF */
        close(c);
    }
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) {
    if (sig != SIGCHLD) stop_signal = sig; /* SIGCHLD only has to interrupt ppoll */
}

/*
 * The supervisor. It also reaps every child it inherits, so it can run as PID 1 without --init.
 * Signals stay blocked except inside ppoll(2), so none can slip in between the checks and the
 * wait.
 */
static int supervise(const struct listener *l) {
    sigset_t block, none;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigemptyset(&none);
    sigprocmask(SIG_BLOCK, &block, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    pid_t server = 0;
    int64_t interval = RESTART_INTERVAL_MS;
    int64_t last_start = now_ms() - interval, last_log = now_ms() - LOG_QUIET_MS;
    for (;;) {
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
            if (p != server) continue;
            server = 0;
            /* A server that cannot bind (socket directory gone or not writable) dies at once:
             * back off rather than fork ten times a second for the life of the container. A
             * server that ran for a while is restarted after the minimum interval. */
            if (now_ms() - last_start < SERVER_YOUNG_MS)
                interval = interval * 2 > RESTART_MAX_MS ? RESTART_MAX_MS : interval * 2;
            else
                interval = RESTART_INTERVAL_MS;
            if (now_ms() - last_log >= LOG_QUIET_MS) {
                logmsg("server exited (%s %d), restarting", WIFEXITED(st) ? "status" : "signal",
                       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                last_log = now_ms();
                log_quiet = 0;
            } else {
                log_quiet = 1; /* failing in a loop: keep the container log readable */
            }
        }
        if (stop_signal) {
            int sig = stop_signal;
            if (server > 0) kill(server, sig);
            /* Die of the same signal, as sleep did. As PID 1 that does nothing: exit instead. */
            signal(sig, SIG_DFL);
            sigprocmask(SIG_SETMASK, &none, NULL);
            raise(sig);
            _exit(128 + sig);
        }
        struct timespec ts, *tsp = NULL;
        if (server == 0) {
            int64_t wait = last_start + interval - now_ms();
            if (wait <= 0) {
                last_start = now_ms();
                server = fork();
                if (server == 0) {
                    /* The server must die of SIGTERM again and see no blocked signals. */
                    signal(SIGTERM, SIG_DFL);
                    signal(SIGINT, SIG_DFL);
                    sigprocmask(SIG_SETMASK, &none, NULL);
                    run_server(l);
                }
                if (server < 0) {
                    logmsg("fork: %s", strerror(errno));
                    server = 0;
                }
                continue;
            }
            ts.tv_sec = wait / 1000;
            ts.tv_nsec = (wait % 1000) * 1000000;
            tsp = &ts;
        }
        ppoll(NULL, 0, tsp, &none); /* returns on a signal or at the restart time */
    }
}

/*
 * `[ADDRESS:]PORT`: an IPv4 literal or a bracketed IPv6 literal, else every address of the pod
 * (the IPv6 wildcard, which takes IPv4 too, or the IPv4 one where IPv6 is off). Literals only:
 * a static binary has no name service to ask.
 */
static int parse_tcp_address(const char *arg, struct listener *l) {
    const char *colon = strrchr(arg, ':');
    const char *port_text = colon ? colon + 1 : arg;
    uint64_t port;
    if (parse_num(port_text, 10, 65535, &port) != NULL || port == 0) return -1;
    char host[INET6_ADDRSTRLEN + 2] = "";
    if (colon) {
        size_t n = (size_t)(colon - arg);
        if (n >= sizeof host) return -1;
        memcpy(host, arg, n);
        host[n] = '\0';
    }
    memset(&l->tcp, 0, sizeof l->tcp);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&l->tcp;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&l->tcp;
    size_t hn = strlen(host);
    if (hn >= 2 && host[0] == '[' && host[hn - 1] == ']') {
        host[hn - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) != 1) return -1;
    } else if (hn > 0) {
        if (inet_pton(AF_INET, host, &v4->sin_addr) != 1) return -1;
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        l->tcp_len = sizeof *v4;
        return 0;
    } else {
        int probe = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe < 0) { /* no IPv6 in this pod: the IPv4 wildcard */
            v4->sin_family = AF_INET;
            v4->sin_addr.s_addr = htonl(INADDR_ANY);
            v4->sin_port = htons((uint16_t)port);
            l->tcp_len = sizeof *v4;
            return 0;
        }
        close(probe);
        v6->sin6_addr = in6addr_any;
    }
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    l->tcp_len = sizeof *v6;
    return 0;
}

/* The key file must hold exactly AUTH_KEY bytes: a short or long one is a deployment error. */
static int read_key(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        logmsg("key %s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char buf[AUTH_KEY + 1];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fd, buf + got, sizeof buf - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
        if (got == sizeof buf) break;
    }
    close(fd);
    if (got != AUTH_KEY) {
        logmsg("key %s: must be exactly %u bytes", path, AUTH_KEY);
        explicit_bzero(buf, sizeof buf);
        return -1;
    }
    memcpy(auth_key, buf, AUTH_KEY);
    explicit_bzero(buf, sizeof buf);
    auth_required = 1;
    return 0;
}

/* Descriptors 0-2 must be taken, or a pipe could land on them and be clobbered by the dup2
 * calls of an exec. */
static void claim_std_fds(void) {
    int fd;
    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2) {
    }
    if (fd > 2) close(fd);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "version") == 0) {
        puts(VERSION);
        return 0;
    }
    static struct listener l; /* lives as long as the supervisor and its forks */
    if (argc == 3 && strcmp(argv[1], "serve") == 0) {
        if (strlen(argv[2]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
            logmsg("socket path too long: %s", argv[2]);
            return 2;
        }
        claim_std_fds();
        l.socket_path = argv[2];
        return supervise(&l);
    }
    if (argc == 4 && strcmp(argv[1], "serve-tcp") == 0) {
        if (parse_tcp_address(argv[2], &l) < 0) {
            logmsg("not a [ADDRESS:]PORT: %s", argv[2]);
            return 2;
        }
        if (read_key(argv[3]) < 0) return 2;
        claim_std_fds();
        return supervise(&l);
    }
    if (argc == 3 && strcmp(argv[1], "mcp") == 0) return mcp_relay(argv[2]);
    if (argc == 3 && strcmp(argv[1], "acp-feed") == 0) return acp_feed(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "tool") == 0) return tool_cli(argc - 2, argv + 2);
    fputs("usage: agentbox-sandboxd serve SOCKET | agentbox-sandboxd serve-tcp [ADDRESS:]PORT "
          "KEYFILE | agentbox-sandboxd mcp DIR | agentbox-sandboxd acp-feed DIR | "
          "agentbox-sandboxd tool list|call ... | "
          "agentbox-sandboxd version\n",
          stderr);
    return 2;
}
