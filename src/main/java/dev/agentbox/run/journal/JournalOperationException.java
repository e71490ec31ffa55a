package dev.agentbox.run.journal;

/**
 * A journal command (start, delete) ran but failed inside the sandbox: a broken system, not a lost
 * race.
 */
final class JournalOperationException extends RuntimeException {

    public JournalOperationException(String message) {
        super(message);
    }
}
