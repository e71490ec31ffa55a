package dev.agentbox.run.store;

import java.io.Serializable;
import java.util.Objects;

/** Primary key of {@link RunEvent}: the run and the chunk's sequence number in its log. */
public class RunEventId implements Serializable {

    private static final long serialVersionUID = 1L;

    private String runPk;
    private long seq;

    public RunEventId() {}

    public RunEventId(String runPk, long seq) {
        this.runPk = runPk;
        this.seq = seq;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RunEventId other
                && seq == other.seq
                && Objects.equals(runPk, other.runPk);
    }

    @Override
    public int hashCode() {
        return Objects.hash(runPk, seq);
    }
}
