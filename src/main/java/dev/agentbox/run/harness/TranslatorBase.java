package dev.agentbox.run.harness;

import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What every translator shares: the lifecycle chunks, the terminal latch, the text message a
 * translator may hold open across lines, the run's {@link AgUiSequence}, and JSON parsing of lines.
 *
 * <p>Subclasses implement {@link #translate} and emit through {@link Out}, which keeps the
 * invariants "an open text message is closed before any chunk that does not continue it" and "the
 * chunks are a valid AG-UI sequence, with nothing left open at the terminal chunk".
 */
abstract class TranslatorBase implements HarnessTranslator {

    /** Looked up once: {@code Json.createX} looks the provider up on every call, which is slow. */
    private static final JsonProvider JSON = JsonProvider.provider();

    /** How much of the agent's stderr goes into an exit error. */
    static final int STDERR_TAIL_CHARS = 1000;

    protected final ChunkFactory chunks;
    protected final RunIds ids;
    private final AgUiSequence sequence = new AgUiSequence();
    private Optional<String> openText = Optional.empty();
    private boolean started;
    private boolean terminated;

    TranslatorBase(String runId, String threadId, LongSupplier timestamps) {
        this.chunks = new ChunkFactory(runId, threadId, timestamps);
        this.ids = new RunIds(runId, sequence::seen);
    }

    /** Translates one line, emitting into {@code out}. */
    protected abstract void translate(String line, Out out);

    @Override
    public final List<JsonObject> onStart() {
        if (started) {
            throw new IllegalStateException("onStart called twice");
        }
        started = true;
        JsonObject runStarted = chunks.runStarted();
        sequence.accept(runStarted);
        return List.of(runStarted);
    }

    /** The terminal chunk once emitted (from a line, or at exit). */
    private JsonObject terminal;

    @Override
    public final List<JsonObject> onLine(String line) {
        if (terminated) {
            return List.of();
        }
        Out out = new Out();
        translate(line, out);
        return out.collected;
    }

    @Override
    public final List<JsonObject> onExit(int exitCode, String stderr) {
        if (terminated) {
            return List.of();
        }
        Out out = new Out();
        out.emit(exitCode == 0 ? finished() : exitedWithError(exitCode, stderr));
        return out.collected;
    }

    /**
     * The {@code RUN_ERROR} of a non-zero exit the agent's output did not end already: {@code
     * "Agent process exited with code N: <stderr tail>"}, code {@code agent-exit}.
     */
    protected JsonObject exitedWithError(int exitCode, String stderr) {
        String tail = stderrTail(stderr);
        return chunks.runError(
                "Agent process exited with code " + exitCode + (tail.isEmpty() ? "" : ": " + tail),
                AGENT_EXIT);
    }

    /** The {@code RUN_FINISHED} of an exit 0 the agent's output did not end already. */
    protected JsonObject finished() {
        return chunks.runFinished();
    }

    @Override
    public final boolean terminated() {
        return terminated;
    }

    @Override
    public final Optional<JsonObject> terminal() {
        return Optional.ofNullable(terminal);
    }

    /** The id of the text message held open across lines, if any. */
    protected final Optional<String> openText() {
        return openText;
    }

    /**
     * The last {@value #STDERR_TAIL_CHARS} characters of {@code stderr} after trailing whitespace
     * is dropped (the final newline is not part of the message); never starts with half a surrogate
     * pair.
     */
    static String stderrTail(String stderr) {
        String s = stderr.stripTrailing();
        if (s.length() <= STDERR_TAIL_CHARS) {
            return s;
        }
        int from = s.length() - STDERR_TAIL_CHARS;
        if (Character.isLowSurrogate(s.charAt(from))) {
            from++;
        }
        return s.substring(from);
    }

    /** The line as a JSON object, or empty when it is not exactly one JSON object. */
    static Optional<JsonObject> parseObject(String line) {
        String trimmed = line.strip();
        if (!trimmed.startsWith("{")) {
            return Optional.empty();
        }
        // A streaming parser, because JsonReader accepts trailing garbage after the first value.
        try (JsonParser parser = JSON.createParser(new StringReader(trimmed))) {
            if (parser.next() != JsonParser.Event.START_OBJECT) {
                return Optional.empty();
            }
            JsonObject object = parser.getObject();
            return parser.hasNext() ? Optional.empty() : Optional.of(object);
        } catch (JsonException | IllegalStateException | NoSuchElementException e) {
            // Not JSON (or trailing garbage after one value): the line is plain text.
            return Optional.empty();
        }
    }

    /**
     * Collects one call's chunks and enforces the invariants: an open text message is closed before
     * any chunk that does not continue it; every chunk keeps the log a valid AG-UI sequence ({@link
     * AgUiSequence}); everything still open is closed before the terminal chunk; nothing follows
     * it.
     */
    protected final class Out {
        private final List<JsonObject> collected = new ArrayList<>();

        /**
         * Emits one of the translator's own chunks, closing the open text message first unless it
         * continues it.
         *
         * @throws IllegalArgumentException when the chunk would break the sequence: a translator
         *     bug, never the agent's doing
         */
        void emit(JsonObject chunk) {
            if (terminated) {
                return;
            }
            closeTextUnlessContinued(chunk);
            if (Chunks.isTerminal(chunk)) {
                for (JsonObject end : sequence.closing(TranslatorBase.this.chunks)) {
                    add(end);
                }
            }
            add(chunk);
            if (Chunks.isTerminal(chunk)) {
                terminated = true;
                // as collected (the sequence guard may have completed it), i.e. as stored
                terminal = collected.get(collected.size() - 1);
            }
        }

        /**
         * Emits a chunk the agent supplied (already stamped and with its ids filled in) when it
         * keeps the sequence valid; otherwise {@code CUSTOM agent.output} with {@code original},
         * the line's object as the agent wrote it. Never a terminal chunk.
         *
         * @return whether {@code chunk} itself was emitted
         */
        boolean emitAgent(JsonObject chunk, JsonObject original) {
            if (terminated) {
                return false;
            }
            // The open delta message is closed by whatever is emitted, unless the chunk continues
            // it: close it first so the chunk is judged against what will precede it.
            closeTextUnlessContinued(chunk);
            boolean acceptable = !Chunks.isTerminal(chunk) && sequence.refusal(chunk).isEmpty();
            emit(
                    acceptable
                            ? chunk
                            : TranslatorBase.this.chunks.custom(
                                    CommandTranslator.AGENT_OUTPUT, original));
            return acceptable;
        }

        private void closeTextUnlessContinued(JsonObject chunk) {
            if (openText.isEmpty()) {
                return;
            }
            Optional<ChunkType> type = Chunks.typeOf(chunk);
            boolean sameMessage = Chunks.string(chunk, "messageId").equals(openText);
            boolean continues =
                    sameMessage && type.equals(Optional.of(ChunkType.TEXT_MESSAGE_CONTENT));
            boolean closes = sameMessage && type.equals(Optional.of(ChunkType.TEXT_MESSAGE_END));
            if (closes) {
                openText = Optional.empty();
            } else if (!continues) {
                closeText();
            }
        }

        private void add(JsonObject chunk) {
            sequence.accept(chunk);
            collected.add(chunk);
        }

        /**
         * Appends {@code delta} to the open text message, opening one (role assistant) if needed.
         */
        void appendText(String delta) {
            if (openText.isEmpty()) {
                String id = ids.next();
                emit(TranslatorBase.this.chunks.textMessageStart(id, "assistant"));
                openText = Optional.of(id);
            }
            emit(TranslatorBase.this.chunks.textMessageContent(openText.get(), delta));
        }

        /** A whole text message: START, CONTENT, END with a fresh id (nothing for empty text). */
        void textMessage(String role, String text) {
            if (text.isEmpty()) {
                return;
            }
            String id = ids.next();
            emit(TranslatorBase.this.chunks.textMessageStart(id, role));
            emit(TranslatorBase.this.chunks.textMessageContent(id, text));
            emit(TranslatorBase.this.chunks.textMessageEnd(id));
        }

        /**
         * A whole reasoning span holding one reasoning message: REASONING_START, REASONING_MESSAGE_
         * START/CONTENT/END, REASONING_END, with fresh ids (nothing for empty text).
         */
        void reasoning(String text) {
            if (text.isEmpty()) {
                return;
            }
            String span = ids.next();
            String message = ids.next();
            ChunkFactory f = TranslatorBase.this.chunks;
            emit(f.reasoningStart(span));
            emit(f.reasoningMessageStart(message));
            emit(f.reasoningMessageContent(message, text));
            emit(f.reasoningMessageEnd(message));
            emit(f.reasoningEnd(span));
        }

        /** A whole tool call: START, ARGS (when non-empty), END under {@code toolCallId}. */
        void toolCall(String toolCallId, String name, String args) {
            emit(TranslatorBase.this.chunks.toolCallStart(toolCallId, name));
            if (!args.isEmpty()) {
                emit(TranslatorBase.this.chunks.toolCallArgs(toolCallId, args));
            }
            emit(TranslatorBase.this.chunks.toolCallEnd(toolCallId));
        }

        /** Closes the open text message, if any. */
        void closeText() {
            if (openText.isPresent()) {
                String id = openText.get();
                openText = Optional.empty();
                add(TranslatorBase.this.chunks.textMessageEnd(id));
            }
        }
    }
}
