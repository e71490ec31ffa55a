package dev.agentbox.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.agentbox.run.harness.ChunkFactory;
import dev.agentbox.run.harness.Chunks;
import dev.agentbox.run.harness.CommandTranslator;
import dev.agentbox.run.harness.Harness;
import dev.agentbox.run.harness.HarnessTranslator;
import dev.agentbox.run.store.StoredChunk;
import dev.agentbox.testing.Slow;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AlignmentTest {

    private static final String RUN = "run-a";
    private static final String THREAD = "thread-a";

    /** The scripted agent of AL-01: its journal translates to 6 chunks. */
    private static final List<String> JOURNAL =
            List.of(
                    "{\"delta\":\"one\"}",
                    "plain",
                    "{\"type\":\"TOOL_CALL_START\",\"toolCallName\":\"t\"}");

    /** Translates the journal as a driver would, with its own clock. */
    private static List<JsonObject> translate(List<String> lines, long clockStart) {
        return translate(Harness.COMMAND, lines, clockStart);
    }

    private static List<JsonObject> translate(
            Harness harness, List<String> lines, long clockStart) {
        AtomicLong clock = new AtomicLong(clockStart);
        HarnessTranslator t = harness.translator(RUN, THREAD, clock::incrementAndGet);
        List<JsonObject> chunks = new ArrayList<>(t.onStart());
        lines.forEach(line -> chunks.addAll(t.onLine(line)));
        chunks.addAll(t.onExit(0, ""));
        return chunks;
    }

    private static ChunkFactory service(long at) {
        return new ChunkFactory(RUN, THREAD, () -> at);
    }

    private static List<JsonObject> runAccepted() {
        return List.of(ServiceChunks.runAccepted(service(1)));
    }

    @Test
    void journalTranslatesToSixChunksThenTheExitsOwn() {
        assertThat(translate(JOURNAL, 0))
                .extracting(c -> c.getString("type"))
                .containsExactly(
                        "RUN_STARTED",
                        "TEXT_MESSAGE_START",
                        "TEXT_MESSAGE_CONTENT",
                        "TEXT_MESSAGE_END",
                        "CUSTOM",
                        "TOOL_CALL_START",
                        "TOOL_CALL_END", // the tool call left open is closed at the exit
                        "RUN_FINISHED");
    }

    @Test
    void successorAppendsExactlyTheChunksAfterTheStoredPrefixDespiteNewTimestamps_AL01() {
        List<JsonObject> original = translate(JOURNAL, 1_000).subList(0, 6);
        List<JsonObject> stored = original.subList(0, 3); // server killed after 3 of 6
        List<JsonObject> replay = translate(JOURNAL, 9_000_000).subList(0, 6);
        assertThat(replay.get(0).getJsonNumber("timestamp"))
                .isNotEqualTo(stored.get(0).getJsonNumber("timestamp"));

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> remainder = alignment.offerAll(replay);

        assertThat(remainder).isEqualTo(replay.subList(3, 6));
        List<JsonObject> log = new ArrayList<>(stored);
        log.addAll(remainder);
        assertThat(log.stream().map(Chunks::fingerprint).toList())
                .isEqualTo(original.stream().map(Chunks::fingerprint).toList());
        alignment.finish();
    }

    @Test
    void realLogHeadedByRunAcceptedAlignsBySkippingIt_AL01() {
        List<JsonObject> translated = translate(JOURNAL, 1_000);
        List<JsonObject> stored = new ArrayList<>(runAccepted());
        stored.addAll(translated.subList(0, 3));
        List<JsonObject> replay = translate(JOURNAL, 5_000);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(3, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(1);
        alignment.finish();
    }

    /**
     * AL-07: the opening chunks are RUN_STARTED then run.accepted; logs stored in the earlier order
     * (run.accepted first) are still running somewhere, and a takeover aligns against both, with
     * the service chunk marked or known only by fingerprint.
     */
    @Test
    void takeoverAlignsAgainstEitherOpeningOrder_AL07() {
        List<JsonObject> translated = translate(JOURNAL, 1_000);
        JsonObject accepted = ServiceChunks.runAccepted(service(1));
        List<JsonObject> oldOrder = new ArrayList<>(List.of(accepted));
        oldOrder.addAll(translated.subList(0, 3));
        List<JsonObject> newOrder = new ArrayList<>(List.of(translated.get(0), accepted));
        newOrder.addAll(translated.subList(1, 3));
        List<JsonObject> replay = translate(JOURNAL, 5_000);
        for (List<JsonObject> stored : List.of(oldOrder, newOrder)) {
            for (Alignment alignment :
                    List.of(Alignment.ofStoredChunks(stored, RUN, THREAD), unmarked(stored))) {
                assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(3, replay.size()));
                assertThat(alignment.skipped()).isEqualTo(1);
                alignment.finish();
            }
        }
    }

    /**
     * A stored log that is just the opening chunks, in either order, is caught up by RUN_STARTED.
     */
    @Test
    void storedOpeningAloneInEitherOrderIsCaughtUpByTheReplayedRunStarted_AL07() {
        JsonObject runStarted = translate(JOURNAL, 1_000).get(0);
        JsonObject accepted = ServiceChunks.runAccepted(service(1));
        List<JsonObject> replay = translate(JOURNAL, 5_000);
        for (List<JsonObject> stored :
                List.of(List.of(accepted, runStarted), List.of(runStarted, accepted))) {
            Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
            assertThat(alignment.offer(replay.get(0))).isEmpty();
            assertThat(alignment.journalCaughtUp()).isTrue();
            assertThat(alignment.offerAll(replay.subList(1, replay.size())))
                    .isEqualTo(replay.subList(1, replay.size()));
            alignment.finish();
        }
    }

    @Test
    void replayOfACompletelyStoredPrefixForwardsNothingUntilNewChunksArrive() {
        List<JsonObject> replay = translate(JOURNAL, 5);
        Alignment alignment =
                Alignment.ofStoredChunks(translate(JOURNAL, 1).subList(0, 4), RUN, THREAD);
        for (int i = 0; i < 4; i++) {
            assertThat(alignment.offer(replay.get(i))).isEmpty();
        }
        assertThat(alignment.caughtUp()).isTrue();
        assertThat(alignment.offer(replay.get(4))).contains(replay.get(4));
    }

    @Test
    void emptyStoredLogForwardsEverything() {
        List<JsonObject> replay = translate(JOURNAL, 5);
        Alignment alignment = Alignment.ofStoredChunks(List.of(), RUN, THREAD);
        assertThat(alignment.offerAll(replay)).isEqualTo(replay);
        alignment.finish();
    }

    @Test
    void rewrittenJournalLineDivergesWithIndexAndBothFingerprints_AL02() {
        List<JsonObject> stored = translate(JOURNAL, 1).subList(0, 4);
        List<String> rewritten =
                List.of(
                        "{\"delta\":\"ONE\"}",
                        "plain",
                        "{\"type\":\"TOOL_CALL_START\",\"toolCallName\":\"t\"}");
        List<JsonObject> replay = translate(rewritten, 2);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> forwarded = new ArrayList<>();
        ReplayDivergedException e =
                catchThrowableOfType(
                        ReplayDivergedException.class,
                        () -> replay.forEach(c -> alignment.offer(c).ifPresent(forwarded::add)));

        assertThat(e.index()).isEqualTo(2);
        assertThat(e.stored()).isEqualTo(Chunks.fingerprint(stored.get(2)));
        assertThat(e.replayed()).contains(Chunks.fingerprint(replay.get(2)));
        assertThat(e.code()).isEqualTo("replay-diverged");
        assertThat(e.getMessage()).contains("index 2", e.stored(), e.replayed().get());
        assertThat(forwarded).as("nothing forwarded").isEmpty();
        assertThatThrownBy(() -> alignment.offer(replay.get(3)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void replayShorterThanTheStoredLogFails_AL03() {
        List<JsonObject> stored = translate(JOURNAL, 1).subList(0, 5);
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(alignment.offerAll(translate(JOURNAL, 2).subList(0, 3))).isEmpty();

        ReplayDivergedException e =
                catchThrowableOfType(ReplayDivergedException.class, alignment::finish);
        assertThat(e.getMessage()).contains("replay is shorter than the stored log");
        assertThat(e.index()).isEqualTo(3);
        assertThat(e.stored()).isEqualTo(Chunks.fingerprint(stored.get(3)));
        assertThat(e.replayed()).isEmpty();
        assertThat(e.code()).isEqualTo("replay-diverged");
    }

    @Test
    void upTo64ConsecutiveServiceInsertedChunksAreSkipped_AL04() {
        List<JsonObject> replay = translate(JOURNAL, 2);
        List<JsonObject> stored = new ArrayList<>();
        stored.add(translate(JOURNAL, 1).get(0));
        stored.addAll(serviceInserted(64));
        stored.add(translate(JOURNAL, 1).get(1));

        Alignment alignment = unmarked(stored);
        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(2, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(64);
        alignment.finish();
    }

    @Test
    void the65thConsecutiveServiceInsertedChunkDiverges_AL04() {
        List<JsonObject> replay = translate(JOURNAL, 2);
        List<JsonObject> stored = new ArrayList<>();
        stored.add(translate(JOURNAL, 1).get(0));
        stored.addAll(serviceInserted(65));
        stored.add(translate(JOURNAL, 1).get(1));

        Alignment alignment = unmarked(stored);
        ReplayDivergedException e =
                catchThrowableOfType(
                        ReplayDivergedException.class, () -> alignment.offerAll(replay));
        assertThat(e.index()).isEqualTo(65); // stored index of the 65th service-inserted chunk
        assertThat(e.stored()).isEqualTo(Chunks.fingerprint(stored.get(65)));
        assertThat(e.replayed()).contains(Chunks.fingerprint(replay.get(1)));
    }

    @Test
    void skipCountResetsOnAMatch_AL04() {
        List<JsonObject> replay = translate(JOURNAL, 2);
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>();
        stored.addAll(serviceInserted(64));
        stored.add(original.get(0));
        stored.addAll(serviceInserted(64));
        stored.add(original.get(1));
        stored.addAll(serviceInserted(64));

        Alignment alignment = unmarked(stored);
        // The trailing 64 are skipped by the next replayed chunk, which then starts the remainder.
        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(2, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(192);
    }

    @Test
    void rewrittenPlainTextLineDivergesInsteadOfBeingAppendedAgain_AL02() {
        List<JsonObject> stored = new ArrayList<>(runAccepted());
        stored.addAll(
                translate(List.of("a"), 1).subList(0, 2)); // RUN_STARTED, CUSTOM agent.text "a"
        List<JsonObject> replay = translate(List.of("b"), 2);
        assertThat(replay.get(1).getString("name")).isEqualTo(CommandTranslator.AGENT_TEXT);

        assertDivergesAt(2, stored, replay, 1);
    }

    @Test
    void rewrittenJsonLineWithoutAChunkTypeDivergesInsteadOfBeingAppendedAgain_AL02() {
        List<JsonObject> stored = new ArrayList<>(runAccepted());
        stored.addAll(
                translate(List.of("{\"k\":1}"), 1)
                        .subList(0, 2)); // RUN_STARTED, CUSTOM agent.output
        List<JsonObject> replay = translate(List.of("{\"k\":2}"), 2);
        assertThat(replay.get(1).getString("name")).isEqualTo(CommandTranslator.AGENT_OUTPUT);

        assertDivergesAt(2, stored, replay, 1);
    }

    @ParameterizedTest
    @EnumSource(Harness.class)
    void rewrittenPlainTextLineDivergesForEveryHarness_AL02(Harness harness) {
        List<JsonObject> original = translate(harness, List.of("a"), 1);
        List<JsonObject> replay = translate(harness, List.of("b"), 2);
        int line = indexOfCustom(original, CommandTranslator.AGENT_TEXT);
        assertThat(indexOfCustom(replay, CommandTranslator.AGENT_TEXT)).isEqualTo(line);
        List<JsonObject> stored = new ArrayList<>(runAccepted());
        stored.addAll(original.subList(0, line + 1));

        assertDivergesAt(line + 1, stored, replay, line);
    }

    @Test
    void storedCustomChunkTheServiceDidNotInsertIsNeverSkipped() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored =
                List.of(
                        original.get(0),
                        service(3).custom("tool.bridge", Json.createValue(1)),
                        original.get(1));

        assertDivergesAt(1, stored, translate(JOURNAL, 2), 1);
    }

    @Test
    void storedNonCustomChunkIsNeverSkipped() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored =
                List.of(original.get(0), service(3).toolCallEnd("x"), original.get(1));
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        alignment.offer(translate(JOURNAL, 2).get(0));
        ReplayDivergedException e =
                catchThrowableOfType(
                        ReplayDivergedException.class,
                        () -> alignment.offer(translate(JOURNAL, 2).get(1)));
        assertThat(e.index()).isEqualTo(1);
    }

    @Test
    void replayWithAnotherThreadIdIsItsOwnError_AL05() {
        List<JsonObject> stored = translate(JOURNAL, 1).subList(0, 2);
        AtomicLong clock = new AtomicLong();
        HarnessTranslator wrong =
                new CommandTranslator(RUN, "some-other-thread", clock::incrementAndGet);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        ReplayThreadIdMismatchException e =
                catchThrowableOfType(
                        ReplayThreadIdMismatchException.class,
                        () -> alignment.offerAll(wrong.onStart()));
        assertThat(e).isNotInstanceOf(ReplayDivergedException.class);
        assertThat(e.expected()).isEqualTo(THREAD);
        assertThat(e.actual()).contains("some-other-thread");
        assertThat(e.code())
                .isEqualTo("replay-thread-mismatch")
                .isNotEqualTo(ReplayDivergedException.CODE);
        assertThat(e.getMessage()).contains("some-other-thread", THREAD);
    }

    @Test
    void threadIdIsCheckedEvenPastTheStoredLog_AL05() {
        Alignment alignment = Alignment.ofStoredChunks(List.of(), RUN, THREAD);
        JsonObject noThread = Chunks.withoutTimestamp(service(1).runStarted());
        JsonObject stripped = Json.createObjectBuilder(noThread).remove("threadId").build();
        ReplayThreadIdMismatchException e =
                catchThrowableOfType(
                        ReplayThreadIdMismatchException.class, () -> alignment.offer(stripped));
        assertThat(e.actual()).isEqualTo(Optional.empty());
    }

    @Test
    void finishedAlignmentRefusesMoreChunks() {
        Alignment alignment = Alignment.ofStoredChunks(List.of(), RUN, THREAD);
        alignment.finish();
        assertThatThrownBy(() -> alignment.offer(service(1).runStarted()))
                .isInstanceOf(IllegalStateException.class);
    }

    /** A long journal aligns whole; its speed is bench/replay's business, not a test's. */
    @Test
    @Slow
    void hundredThousandChunkReplayForwardsOnlyTheChunkPastTheStoredOnes() {
        ChunkFactory a = service(1);
        ChunkFactory b = service(2);
        List<JsonObject> stored =
                IntStream.range(0, 100_000)
                        .mapToObj(i -> a.textMessageContent("m", "line " + i))
                        .toList();
        List<JsonObject> replay =
                IntStream.range(0, 100_001)
                        .mapToObj(i -> b.textMessageContent("m", "line " + i))
                        .toList();
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(alignment.offerAll(replay)).containsExactly(replay.get(100_000));
    }

    /**
     * Feeds {@code replay} and expects a divergence at stored index {@code index} against replayed
     * chunk {@code replayed}, with nothing forwarded.
     */
    private static void assertDivergesAt(
            int index, List<JsonObject> stored, List<JsonObject> replay, int replayed) {
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> forwarded = new ArrayList<>();
        ReplayDivergedException e =
                catchThrowableOfType(
                        ReplayDivergedException.class,
                        () -> replay.forEach(c -> alignment.offer(c).ifPresent(forwarded::add)));

        assertThat(e).as("diverged").isNotNull();
        assertThat(e.code()).isEqualTo("replay-diverged");
        assertThat(e.index()).isEqualTo(index);
        assertThat(e.stored()).isEqualTo(Chunks.fingerprint(stored.get(index)));
        assertThat(e.replayed()).contains(Chunks.fingerprint(replay.get(replayed)));
        assertThat(forwarded).as("nothing forwarded").isEmpty();
    }

    private static int indexOfCustom(List<JsonObject> chunks, String name) {
        return IntStream.range(0, chunks.size())
                .filter(
                        i ->
                                "CUSTOM".equals(chunks.get(i).getString("type"))
                                        && name.equals(chunks.get(i).getString("name")))
                .findFirst()
                .orElseThrow();
    }

    /**
     * An alignment against a log stored before service chunks were marked: {@code run.accepted} is
     * recognised by its fingerprint only.
     */
    private static Alignment unmarked(List<JsonObject> stored) {
        return new Alignment(
                stored.stream()
                        .map(c -> new StoredChunk(c.getString("type"), Chunks.fingerprint(c)))
                        .toList(),
                RUN,
                THREAD);
    }

    private static JsonObject fileChanged(String path, String kind, long at) {
        return ServiceChunks.fileChanged(service(at), path, kind);
    }

    /** AL-06. */
    @Test
    void fileChangedChunksInterleavedByTheFirstDriverAreSkippedByTheSuccessorsReplay_AL06() {
        List<JsonObject> original = translate(JOURNAL, 1_000);
        List<JsonObject> stored = new ArrayList<>(runAccepted());
        stored.add(original.get(0));
        stored.add(fileChanged("/workspace/a.txt", "create", 5));
        stored.add(original.get(1));
        stored.add(original.get(2));
        stored.add(fileChanged("/workspace/a.txt", "change", 6));
        stored.add(fileChanged("/workspace/b.txt", "delete", 6));
        stored.add(original.get(3));
        stored.add(fileChanged("/workspace/c.txt", "create", 7)); // after the last stored line
        List<JsonObject> replay = translate(JOURNAL, 9_000_000);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(4, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(5);
        alignment.finish();
    }

    /**
     * AL-06: a successor appends file events of its own only once its replay has matched every
     * stored journal chunk; trailing service chunks do not hold it back.
     */
    @Test
    void theJournalIsCaughtUpOnceOnlyServiceChunksAreLeft_AL06() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>(original.subList(0, 2));
        stored.add(fileChanged("/workspace/a", "create", 3));
        stored.add(fileChanged("/workspace/b", "create", 3));
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> replay = translate(JOURNAL, 2);
        assertThat(alignment.journalCaughtUp()).isFalse();
        alignment.offer(replay.get(0));
        assertThat(alignment.journalCaughtUp()).isFalse();
        alignment.offer(replay.get(1));
        assertThat(alignment.journalCaughtUp()).isTrue();
        assertThat(alignment.caughtUp()).as("the file events are not passed over yet").isFalse();
        assertThat(Alignment.ofStoredChunks(List.of(), RUN, THREAD).journalCaughtUp()).isTrue();
    }

    /** AL-09: up to 64 marked service chunks in a row between two journal lines are skipped. */
    @Test
    void upTo64ConsecutiveFileChangedChunksAreSkipped_AL09() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>();
        stored.add(original.get(0));
        IntStream.range(0, 64)
                .forEach(i -> stored.add(fileChanged("/workspace/n/" + i, "create", 3)));
        stored.add(original.get(1));
        IntStream.range(0, 64)
                .forEach(i -> stored.add(fileChanged("/workspace/m/" + i, "create", 3)));
        stored.add(original.get(2));
        List<JsonObject> replay = translate(JOURNAL, 2);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(3, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(128);
    }

    /**
     * AL-09: the 65th marked service chunk in a row — file changes, a gate decision and a {@code
     * run.accepted} counting together — is a divergence that says why, nothing forwarded.
     */
    @Test
    void the65thConsecutiveMarkedServiceChunkDiverges_AL09() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>();
        stored.add(original.get(0));
        stored.add(ServiceChunks.runAccepted(service(2)));
        IntStream.range(0, 63)
                .forEach(i -> stored.add(fileChanged("/workspace/n/" + i, "create", 3)));
        stored.add(fileChanged("/workspace/last", "delete", 3));
        stored.add(original.get(1));
        List<JsonObject> replay = translate(JOURNAL, 2);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> forwarded = new ArrayList<>();
        ReplayDivergedException e =
                catchThrowableOfType(
                        ReplayDivergedException.class,
                        () -> replay.forEach(c -> alignment.offer(c).ifPresent(forwarded::add)));

        assertThat(e.index()).isEqualTo(65);
        assertThat(e.stored()).isEqualTo(Chunks.fingerprint(stored.get(65)));
        assertThat(e.getMessage()).contains("more than 64 service chunks in a row");
        assertThat(e.code()).isEqualTo("replay-diverged");
        assertThat(forwarded).isEmpty();
    }

    /** AL-09: 65 trailing marked chunks diverge at the end of the replay; 64 do not. */
    @Test
    void moreThan64TrailingFileChangedChunksDivergeAtTheEndOfTheReplay_AL09() {
        List<JsonObject> stored = new ArrayList<>(translate(JOURNAL, 1));
        IntStream.range(0, 64)
                .forEach(i -> stored.add(fileChanged("/workspace/t/" + i, "change", 3)));
        Alignment fits = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(fits.trailingServiceChunks()).isEqualTo(64);
        assertThat(fits.offerAll(translate(JOURNAL, 2))).isEmpty();
        fits.finish();

        stored.add(fileChanged("/workspace/t/64", "change", 3));
        Alignment over = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(over.offerAll(translate(JOURNAL, 2))).isEmpty();
        ReplayDivergedException e =
                catchThrowableOfType(ReplayDivergedException.class, over::finish);
        assertThat(e.getMessage()).contains("more than 64 service chunks in a row");
    }

    /** AL-06: stored file changes after the last journal chunk do not make the replay short. */
    @Test
    void trailingFileChangedChunksDoNotMakeTheReplayShorter_AL06() {
        List<JsonObject> replay = translate(JOURNAL, 2);
        List<JsonObject> stored = new ArrayList<>(translate(JOURNAL, 1));
        stored.add(stored.size() - 1, fileChanged("/workspace/x", "change", 4));
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(alignment.offerAll(replay)).isEmpty();
        alignment.finish();

        List<JsonObject> prefix = new ArrayList<>(translate(JOURNAL, 1).subList(0, 3));
        prefix.add(fileChanged("/workspace/y", "create", 4));
        Alignment partial = Alignment.ofStoredChunks(prefix, RUN, THREAD);
        assertThat(partial.offerAll(replay.subList(0, 3))).isEmpty();
        partial.finish();
    }

    /**
     * AL-06: an agent that prints a {@code file.changed} line of its own gets {@code agent.output},
     * so its line is aligned like any other: a rewritten one still diverges, and a stored service
     * chunk with the same path and kind is no stand-in for it.
     */
    @Test
    void aForgedFileChangedLineIsAnOrdinaryJournalChunk_AL06() {
        String forged =
                "{\"type\":\"CUSTOM\",\"name\":\"file.changed\",\"value\":"
                        + "{\"path\":\"/workspace/a\",\"kind\":\"create\"}}";
        List<JsonObject> original = translate(List.of("one", forged, "two"), 1);
        assertThat(original.get(2).getString("name")).isEqualTo(CommandTranslator.AGENT_OUTPUT);
        assertThat(StoredChunk.of(original.get(2)).service()).isFalse();

        // Stored: the forged line as agent.output; replay: the line rewritten to something else.
        List<JsonObject> rewritten = translate(List.of("one", "{\"x\":1}", "two"), 2);
        assertDivergesAt(2, original, rewritten, 2);

        // A service chunk with the very same path and kind does not match the forged line.
        List<JsonObject> stored = new ArrayList<>(original.subList(0, 2));
        stored.add(fileChanged("/workspace/a", "create", 3));
        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> replay = translate(List.of("one", forged, "two"), 4);
        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(2, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(1);
    }

    private static List<JsonObject> serviceInserted(int n) {
        return Collections.nCopies(n, ServiceChunks.runAccepted(service(7)));
    }

    /**
     * Calls of the run's own tools through the tool bridge are the driving server's chunks, not the
     * journal's: a takeover's replay passes over them wherever they stand between journal chunks.
     */
    @Test
    void bridgeToolCallChunksInterleavedInTheStoredLogArePassedOverByTheReplay() {
        List<JsonObject> translated = translate(JOURNAL, 1_000);
        List<JsonObject> stored = new ArrayList<>(List.of(translated.get(0)));
        stored.addAll(ServiceChunks.bridgeCallStarted(service(2), "s1:1", "weather", "{}"));
        stored.addAll(translated.subList(1, 3));
        stored.add(ServiceChunks.bridgeCallResult(service(3), "s1:1", "sunny"));
        stored.addAll(ServiceChunks.bridgeCallStarted(service(4), "s1:2", "weather", "{}"));
        stored.add(translated.get(3));
        List<JsonObject> replay = translate(JOURNAL, 5_000);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);

        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(4, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(7);
        alignment.finish();
    }

    /** {@code n} bridge chunks: whole calls (start, args, end, result) cut to {@code n}. */
    private static List<JsonObject> bridgeChunks(int n) {
        List<JsonObject> out = new ArrayList<>();
        for (int call = 0; out.size() < n; call++) {
            out.addAll(ServiceChunks.bridgeCallStarted(service(2), "s1:" + call, "weather", "{}"));
            out.add(ServiceChunks.bridgeCallResult(service(3), "s1:" + call, "sunny"));
        }
        return out.subList(0, n);
    }

    /**
     * AL-08: 64 out-of-band chunks in a row, bridge chunks with a file change among them, pass; a
     * 65th in the row, whichever its kind, diverges.
     */
    @Test
    void upTo64BridgeChunksInARowArePassedOver_AL08() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>(List.of(original.get(0)));
        stored.addAll(bridgeChunks(32));
        stored.add(fileChanged("/workspace/a", "create", 3));
        stored.addAll(bridgeChunks(31));
        stored.add(original.get(1));
        stored.addAll(bridgeChunks(64));
        stored.add(original.get(2));
        List<JsonObject> replay = translate(JOURNAL, 2);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);

        assertThat(alignment.offerAll(replay)).isEqualTo(replay.subList(3, replay.size()));
        assertThat(alignment.skipped()).isEqualTo(128);
        alignment.finish();

        List<JsonObject> over = new ArrayList<>(List.of(original.get(0)));
        over.addAll(bridgeChunks(32));
        over.add(fileChanged("/workspace/a", "create", 3));
        over.addAll(bridgeChunks(32));
        over.add(original.get(1));
        assertThatThrownBy(() -> Alignment.ofStoredChunks(over, RUN, THREAD).offerAll(replay))
                .isInstanceOf(ReplayDivergedException.class)
                .hasMessageContaining("more than 64 service chunks in a row");
    }

    /** AL-08: the 65th bridge chunk in a row is a divergence that says why, nothing forwarded. */
    @Test
    void the65thBridgeChunkInARowDiverges_AL08() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>(List.of(original.get(0)));
        stored.addAll(bridgeChunks(65));
        stored.add(original.get(1));
        List<JsonObject> replay = translate(JOURNAL, 2);

        Alignment alignment = Alignment.ofStoredChunks(stored, RUN, THREAD);
        List<JsonObject> forwarded = new ArrayList<>();
        ReplayDivergedException e =
                catchThrowableOfType(
                        ReplayDivergedException.class,
                        () -> replay.forEach(c -> alignment.offer(c).ifPresent(forwarded::add)));

        assertThat(e.index()).isEqualTo(65);
        assertThat(e.stored()).isEqualTo(Chunks.fingerprint(stored.get(65)));
        assertThat(e.getMessage()).contains("more than 64 service chunks in a row");
        assertThat(e.code()).isEqualTo("replay-diverged");
        assertThat(forwarded).isEmpty();
    }

    /** AL-08: trailing bridge chunks count too: 65 after the last journal chunk diverge. */
    @Test
    void moreThan64TrailingBridgeChunksDivergeAtTheEndOfTheReplay_AL08() {
        List<JsonObject> original = translate(JOURNAL, 1);
        List<JsonObject> stored = new ArrayList<>(original);
        stored.addAll(bridgeChunks(64));
        Alignment fits = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(fits.offerAll(translate(JOURNAL, 2))).isEmpty();
        fits.finish();

        stored.addAll(bridgeChunks(1));
        Alignment over = Alignment.ofStoredChunks(stored, RUN, THREAD);
        assertThat(over.offerAll(translate(JOURNAL, 2))).isEmpty();
        ReplayDivergedException e =
                catchThrowableOfType(ReplayDivergedException.class, over::finish);
        assertThat(e.getMessage()).contains("more than 64 service chunks in a row");
    }

    @Test
    void bridgeToolCallChunksCarryAReservedIdTheSameOnEveryServer() {
        List<JsonObject> a = ServiceChunks.bridgeCallStarted(service(1), "s1:7", "weather", "{}");
        List<JsonObject> b = ServiceChunks.bridgeCallStarted(service(9), "s1:7", "weather", "{}");
        assertThat(a.get(0).getString("toolCallId"))
                .startsWith(Chunks.BRIDGE_TOOL_CALL_PREFIX)
                .isEqualTo(b.get(0).getString("toolCallId"));
        assertThat(a).allMatch(Chunks::isServiceChunk);
        assertThat(Chunks.isServiceChunk(service(1).toolCallStart("r-0", "Bash"))).isFalse();
    }

    @Test
    void anAgentLineClaimingABridgeToolCallIdIsOnlyAgentOutput() {
        List<JsonObject> chunks =
                translate(
                        List.of(
                                "{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"agentbox-tool-1\","
                                        + "\"toolCallName\":\"t\"}"),
                        0);
        assertThat(chunks)
                .extracting(c -> c.getString("type") + " " + c.getString("name", ""))
                .containsExactly("RUN_STARTED ", "CUSTOM agent.output", "RUN_FINISHED ");
    }
}
