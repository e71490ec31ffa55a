package dev.agentbox.sandbox.kubernetes;

import java.util.logging.Level;
import java.util.logging.Logger;

/** The mock API server logs every request at INFO; tests keep only its warnings. */
public final class MockServerLogs {

    private MockServerLogs() {}

    /** Keep the returned logger referenced: a logger nobody holds forgets its level. */
    public static Logger quiet() {
        Logger logger = Logger.getLogger("io.fabric8.mockwebserver");
        logger.setLevel(Level.WARNING);
        return logger;
    }
}
