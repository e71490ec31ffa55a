package dev.agentbox.platform;

import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * A position in a list ordered by a time, ties broken by an id: the last entry a page held. The
 * next page is every entry after it in the list's order, whatever was added or removed meanwhile
 * (keyset paging: no entry is skipped or repeated because an earlier one went away, unlike an
 * offset).
 *
 * <p>On the wire it is opaque: base64url of {@code <epoch seconds>.<nanos>:<id>}. {@link #parse}
 * refuses anything that does not decode to that shape, so a forged cursor can only name a position,
 * never change the query; the tenant filter stays the caller's.
 *
 * @param at the entry's time, as stored
 * @param id the entry's id
 */
public record PageCursor(Instant at, String id) {

    /** Longest cursor accepted on the wire (an id is at most a few hundred characters). */
    private static final int MAX_TEXT = 2048;

    public PageCursor {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(id, "id");
    }

    /** The cursor's wire form. */
    public String encode() {
        String plain = at.getEpochSecond() + "." + at.getNano() + ":" + id;
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    /** The cursor a wire form names; empty when it is not one this class wrote. */
    public static Optional<PageCursor> parse(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_TEXT) {
            return Optional.empty();
        }
        try {
            String plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
            int colon = plain.indexOf(':');
            int dot = plain.indexOf('.');
            if (dot < 1 || colon < dot + 2 || colon == plain.length() - 1) {
                return Optional.empty();
            }
            long seconds = Long.parseLong(plain.substring(0, dot));
            int nanos = Integer.parseInt(plain.substring(dot + 1, colon));
            if (nanos < 0 || nanos > 999_999_999) {
                return Optional.empty();
            }
            return Optional.of(
                    new PageCursor(
                            Instant.ofEpochSecond(seconds, nanos), plain.substring(colon + 1)));
        } catch (IllegalArgumentException | DateTimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether an entry sorts below this position by (time, id): in a newest-first list, whether it
     * belongs after the cursor.
     */
    public boolean below(Instant entryAt, String entryId) {
        int c = entryAt.compareTo(at);
        return c < 0 || (c == 0 && entryId.compareTo(id) < 0);
    }

    /**
     * Whether an entry sorts above this position by (time, id): in an oldest-first list, whether it
     * belongs after the cursor.
     */
    public boolean above(Instant entryAt, String entryId) {
        int c = entryAt.compareTo(at);
        return c > 0 || (c == 0 && entryId.compareTo(id) > 0);
    }
}
