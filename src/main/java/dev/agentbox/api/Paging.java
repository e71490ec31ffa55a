package dev.agentbox.api;

import dev.agentbox.platform.PageCursor;
import dev.agentbox.problem.ProblemException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Keyset paging of a list endpoint: {@code ?limit} and {@code ?cursor} in, the page's entries and a
 * {@code Link: <…>; rel="next"} header out when more follow. The cursor is the last entry of the
 * page ({@link PageCursor}), so a page never skips or repeats an entry because others were added or
 * removed meanwhile; the filters of the request stay in the next link.
 *
 * @param limit the page's size, 1 to {@link #MAX}
 * @param after the position the page starts after; empty for the first page
 */
record Paging(int limit, Optional<PageCursor> after) {

    /** The largest page, and the size of a page when {@code ?limit} is absent. */
    static final int MAX = 200;

    /**
     * The paging a request asks for; {@code 400 invalid-request} with {@code field} naming the
     * parameter if bad.
     */
    static Paging of(String limit, String cursor) {
        int n = MAX;
        if (limit != null) {
            try {
                n = Integer.parseInt(limit);
            } catch (NumberFormatException e) {
                n = 0;
            }
            if (n < 1 || n > MAX) {
                throw ProblemException.invalidField("limit", "must be an integer from 1 to " + MAX);
            }
        }
        Optional<PageCursor> after = Optional.empty();
        if (cursor != null) {
            after = PageCursor.parse(cursor);
            if (after.isEmpty()) {
                throw ProblemException.invalidField(
                        "cursor", "must be a value taken from a next link of this list");
            }
        }
        return new Paging(n, after);
    }

    /**
     * How many entries to ask the store for: one more than a page tells whether another follows.
     */
    int fetch() {
        return limit + 1;
    }

    /** The entries of this page out of {@link #fetch()} fetched ones. */
    <T> List<T> page(List<T> fetched) {
        return fetched.size() > limit ? fetched.subList(0, limit) : fetched;
    }

    /**
     * {@code ok} with a {@code Link rel="next"} when more entries than a page were fetched: the
     * request's own path and filters, this page's size and the cursor of its last entry. A relative
     * reference, so it stays right behind any proxy that maps the host.
     */
    <T> Response.ResponseBuilder linkNext(
            Response.ResponseBuilder ok,
            List<T> fetched,
            Function<T, PageCursor> cursorOf,
            UriInfo uri) {
        if (fetched.size() <= limit) {
            return ok;
        }
        URI next =
                uri.getRequestUriBuilder()
                        .replaceQueryParam("limit", limit)
                        .replaceQueryParam(
                                "cursor", cursorOf.apply(fetched.get(limit - 1)).encode())
                        .build();
        String target =
                next.getRawPath() + (next.getRawQuery() == null ? "" : "?" + next.getRawQuery());
        return ok.header("Link", "<" + target + ">; rel=\"next\"");
    }
}
