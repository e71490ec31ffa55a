/*
 * agentbox-sandboxd acp-feed DIR: the durable stdin of an ACP agent (docs/sandbox-channel.md,
 * "The ACP feeder").
 *
 * A run's agent is started detached as `agentbox-sandboxd acp-feed DIR | AGENT >> JOURNAL`. The
 * server that drives the run holds no pipe to the agent: it may die, and the server that takes
 * the run over could not reach that pipe. Instead it writes each message for the agent as a
 * whole file of DIR, through the channel's atomic write (temp file `.agentbox-sandboxd.XXXXXX`
 * beside it, then rename), and this process copies those files to its stdout, the agent's stdin.
 * It understands nothing of ACP.
 *
 *   DIR/NAME   NAME of 1 to 64 characters of [a-z0-9-], not `end`: one message, copied to
 *              stdout once for the life of this process (followed by a newline when it does not
 *              end with one). The names of one scan go out in bytewise order. A name written a
 *              second time (a server taking over writes what it cannot know was sent) is not
 *              copied again.
 *   DIR/end    the last scan copies what else is there, then stdout is closed: the agent reads
 *              EOF and ends.
 * Any other name (temp files start with `.`) is left alone.
 *
 * The feeder also ends, at once, when its stdout has no reader any more (the agent exited), so
 * `( feed | agent )` never waits for it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ACP_FEED_MAX_BYTES
#define ACP_FEED_MAX_BYTES (64ll * 1024 * 1024) /* a larger file is skipped, never cut */
#endif
#define ACP_FEED_MAX_NAMES 1000000u /* names remembered as copied; past that the feeder quits */
#define ACP_FEED_NAME_MAX 64        /* characters of a message's name */
#define ACP_FEED_POLL_MS 250        /* DIR is scanned this often even without inotify */
#define ACP_FEED_CHUNK (64u * 1024u)

static const char *feed_dir;

/* --- the names already copied: a set of strings, open addressing, grown at half full ------ */

static char **seen;
static size_t seen_cap, seen_count;

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static _Noreturn void feed_die(const char *what) {
    fprintf(stderr, "agentbox-sandboxd acp-feed: %s: %s\n", what, strerror(errno));
    exit(1);
}

static size_t seen_slot(char **table, size_t cap, const char *name) {
    size_t i = (size_t)name_hash(name) & (cap - 1);
    while (table[i] && strcmp(table[i], name) != 0) i = (i + 1) & (cap - 1);
    return i;
}

static int seen_has(const char *name) {
    return seen_cap > 0 && seen[seen_slot(seen, seen_cap, name)] != NULL;
}

static void seen_add(const char *name) {
    if (seen_count >= ACP_FEED_MAX_NAMES) {
        fprintf(stderr,
                "agentbox-sandboxd acp-feed: more than %u messages in %s: the feeder ends\n",
                ACP_FEED_MAX_NAMES, feed_dir);
        exit(1);
    }
    if (2 * (seen_count + 1) > seen_cap) {
        size_t cap = seen_cap ? 2 * seen_cap : 1024;
        char **table = calloc(cap, sizeof *table);
        if (!table) feed_die("calloc");
        for (size_t i = 0; i < seen_cap; i++)
            if (seen[i]) table[seen_slot(table, cap, seen[i])] = seen[i];
        free(seen);
        seen = table;
        seen_cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) feed_die("strdup");
    seen[seen_slot(seen, seen_cap, name)] = copy;
    seen_count++;
}

/* --- output -------------------------------------------------------------------------------- */

/* The agent is gone (its stdin closed): nothing is left to feed. */
static _Noreturn void reader_gone(void) { exit(0); }

static void feed_write_all(const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE) reader_gone();
            feed_die("stdout");
        }
        p += w;
        n -= (size_t)w;
    }
}

static int message_name(const char *name) {
    size_t n = 0;
    for (; name[n]; n++) {
        char c = name[n];
        if (n == ACP_FEED_NAME_MAX) return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return 0;
    }
    return n > 0 && strcmp(name, "end") != 0;
}

/*
 * Copies DIR/name to stdout, whole, and remembers the name. A name that vanished since the scan
 * listed it is not remembered (written again, it is copied then); one that is no regular file
 * (a symlink, a FIFO, a directory) is passed over and looked at again at the next scan.
 */
static void emit(int dfd, const char *name) {
    static char buf[ACP_FEED_CHUNK];
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP || errno == ENXIO) return;
        fprintf(stderr, "agentbox-sandboxd acp-feed: %s/%s skipped: %s\n", feed_dir, name,
                strerror(errno));
        seen_add(name); /* reported once, not at every scan */
        return;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) feed_die(name);
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    seen_add(name);
    if (st.st_size > ACP_FEED_MAX_BYTES) {
        fprintf(stderr, "agentbox-sandboxd acp-feed: %s/%s skipped: %lld bytes, over %lld\n",
                feed_dir, name, (long long)st.st_size, (long long)ACP_FEED_MAX_BYTES);
        close(fd);
        return;
    }
    /* The size seen at the open bounds the copy: a file that grows meanwhile (written in place
     * by someone other than the server) cannot push the message over the limit. */
    long long left = (long long)st.st_size;
    char last = '\n'; /* an empty file sends nothing, not an empty line */
    while (left > 0) {
        size_t want = left < (long long)sizeof buf ? (size_t)left : sizeof buf;
        ssize_t r = read(fd, buf, want);
        if (r < 0) {
            if (errno == EINTR) continue;
            /* Part of the message may be out already: the agent must not read on. */
            feed_die(name);
        }
        if (r == 0) break;
        last = buf[r - 1];
        feed_write_all(buf, (size_t)r);
        left -= r;
    }
    close(fd);
    if (last != '\n') feed_write_all("\n", 1);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b); /* bytewise, as unsigned chars */
}

/* One scan: copies every new message of DIR in name order. Returns whether DIR/end is there. */
static int scan(void) {
    int dfd = open(feed_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) feed_die(feed_dir); /* DIR removed: the run's files are gone */
    DIR *d = fdopendir(dfd);
    if (!d) feed_die(feed_dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int ended = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, "end") == 0) ended = 1;
        if (!message_name(e->d_name) || seen_has(e->d_name)) continue;
        /* One name past the bound is enough for seen_add to end the feeder. */
        if (seen_count + n > ACP_FEED_MAX_NAMES) break;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (!more) feed_die("realloc");
            names = more;
        }
        if (!(names[n++] = strdup(e->d_name))) feed_die("strdup");
        errno = 0;
    }
    if (errno != 0) feed_die(feed_dir);
    if (n > 1) qsort(names, n, sizeof *names, by_name); /* names is NULL when n == 0 */
    for (size_t i = 0; i < n; i++) {
        if (!seen_has(names[i])) emit(dirfd(d), names[i]); /* once, even if listed twice */
        free(names[i]);
    }
    free(names);
    closedir(d);
    return ended;
}

int acp_feed(const char *dir) {
    signal(SIGPIPE, SIG_IGN); /* a reader that left shows as EPIPE, and the feeder exits */
    feed_dir = dir;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) feed_die(dir);
    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ino >= 0 && inotify_add_watch(ino, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
        close(ino);
        ino = -1; /* the poll alone finds the messages, only later */
    }
    for (;;) {
        if (scan()) {
            /* Files written before `end` may have been missed by the listing that found it
             * (entries renamed in during a readdir); a listing begun after it has them all. */
            scan();
            if (close(1) < 0 && errno != EPIPE) feed_die("stdout");
            return 0;
        }
        /* No events asked of stdout: a pipe's write end still reports POLLERR once its read
         * end is closed, so the feeder ends with the agent, whether or not a file comes. */
        struct pollfd p[2] = {{1, 0, 0}, {ino, POLLIN, 0}};
        int r = poll(p, ino >= 0 ? 2 : 1, ACP_FEED_POLL_MS);
        if (r < 0 && errno != EINTR) feed_die("poll");
        if (r <= 0) continue;
        if (p[0].revents & POLLNVAL) {
            errno = EBADF;
            feed_die("stdout");
        }
        if (p[0].revents & (POLLERR | POLLHUP)) reader_gone();
        if (ino >= 0 && p[1].revents) {
            static char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
            while (read(ino, events, sizeof events) > 0) {
            }
        }
    }
}
