package dev.agentbox.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.reaper.ReaperFixture.Box;
import dev.agentbox.run.BridgeStarter;
import dev.agentbox.run.RunContext;
import dev.agentbox.run.RunDriver;
import dev.agentbox.run.store.RunError;
import dev.agentbox.run.store.RunRecordView;
import dev.agentbox.sandbox.SandboxProviders;
import dev.agentbox.sandbox.SandboxService;
import dev.agentbox.sandbox.spi.SandboxProvider;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A driver that fails for a reason nobody planned for (here: the provider throws a raw exception
 * whose text looks like SQL) ends the run with an incident id; the exception's text is in the
 * server log under that id and nowhere the tenant can read.
 */
class DriverIncidentTest extends ReaperDatabaseTest {

    private static final String INTERNAL =
            "SQLSyntaxErrorException: SELECT token FROM internal_table WHERE tenant='x'";
    private static final Pattern INCIDENT =
            Pattern.compile("^Run driver failed \\(incident ([0-9a-f-]{36})\\)$");

    @Test
    @DisplayName(
            "an unexpected driver failure: the run's error and RUN_ERROR carry an incident id, the log carries the exception")
    void anUnexpectedDriverFailureEndsTheRunWithAnIncidentIdAndNoExceptionText() {
        Box box = f.sandbox();
        RunRecordView run = f.detach(f.run(box, "exit 0"), f.clock.instant());
        RunContext broken =
                new RunContext(
                        f.runs,
                        f.claims,
                        f.log,
                        f.ctx.hub(),
                        new SandboxService(
                                new SandboxProviders(List.of(throwingProvider(f.provider.name()))),
                                f.instances,
                                f.leases,
                                f.clock),
                        f.ctx.launcher(),
                        f.ctx.readers(),
                        f.clock,
                        f.ctx.nodeId(),
                        f.leases,
                        f.ctx.takeover(),
                        cause -> {},
                        (decision, n) -> {},
                        ended -> {},
                        BridgeStarter.NONE);
        List<LogRecord> logged = new ArrayList<>();
        Logger driverLog = Logger.getLogger(RunDriver.class.getName());
        Handler capture =
                new Handler() {
                    @Override
                    public void publish(LogRecord r) {
                        logged.add(r);
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void close() {}
                };
        driverLog.addHandler(capture);
        try {
            RunDriver.finalizer(broken, run, Duration.ofSeconds(30)).execute();
        } finally {
            driverLog.removeHandler(capture);
        }

        RunRecordView after = f.fresh(run);
        assertThat(after.status().wireName()).isEqualTo("failed");
        RunError error = after.error().orElseThrow();
        assertThat(error.code()).contains("internal-error");
        Matcher m = INCIDENT.matcher(error.message());
        assertThat(m.matches()).as(error.message()).isTrue();
        String incident = m.group(1);
        assertThat(f.chunkJson(run))
                .allSatisfy(
                        c -> assertThat(c).doesNotContain("SELECT").doesNotContain("Exception"));
        assertThat(f.chunkJson(run))
                .anySatisfy(c -> assertThat(c).contains("RUN_ERROR").contains(incident));
        assertThat(logged)
                .anySatisfy(
                        r -> {
                            assertThat(r.getMessage()).contains(incident);
                            assertThat(r.getThrown()).hasMessageContaining("SELECT token");
                        });
    }

    /**
     * A provider under the Docker provider's name whose every call throws an unplanned exception.
     */
    private static SandboxProvider throwingProvider(String name) {
        return (SandboxProvider)
                Proxy.newProxyInstance(
                        SandboxProvider.class.getClassLoader(),
                        new Class<?>[] {SandboxProvider.class},
                        (p, method, args) ->
                                switch (method.getName()) {
                                    case "name" -> name;
                                    case "available" -> true;
                                    case "toString" -> "throwing provider";
                                    case "hashCode" -> 0;
                                    case "equals" -> p == args[0];
                                    default -> throw new IllegalStateException(INTERNAL);
                                });
    }
}
