package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.sandbox.spi.ExecResult;
import dev.agentbox.sandbox.spi.ProcessOptions;
import dev.agentbox.sandbox.spi.SandboxHandle;
import dev.agentbox.sandbox.spi.SandboxProcess;
import dev.agentbox.sandbox.spi.SandboxProcesses;
import dev.agentbox.sandbox.spi.SandboxProvider;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The environment recorded with a sandbox reaches every command of every handle built from the
 * record, whichever server builds it: {@link SandboxService#open} builds its handle with {@link
 * SandboxService#handleOf} from the record it just read.
 */
class EnvOverlayTest {

    private record Call(String command, ProcessOptions options) {}

    private final List<Call> calls = new ArrayList<>();

    /** A provider handle that records what it was asked to run. */
    private SandboxHandle raw() {
        SandboxProcesses processes =
                new SandboxProcesses() {
                    @Override
                    public ExecResult exec(String command, ProcessOptions options) {
                        calls.add(new Call(command, options));
                        return new ExecResult("", "", 0, false);
                    }

                    @Override
                    public SandboxProcess spawn(String command, ProcessOptions options) {
                        calls.add(new Call(command, options));
                        return null;
                    }
                };
        return (SandboxHandle)
                Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {SandboxHandle.class},
                        (proxy, method, args) ->
                                switch (method.getName()) {
                                    case "process" -> processes;
                                    case "id" -> "ab-1";
                                    default ->
                                            throw new UnsupportedOperationException(
                                                    method.getName());
                                });
    }

    private static SandboxInstance recordWith(String envJson) {
        SandboxInstance i =
                new SandboxInstance("k", "t", "docker", "ab-1", null, Instant.EPOCH, 1000);
        i.envJson(envJson);
        return i;
    }

    @Test
    void aHandleOpenedFromTheRecordPassesItsVariablesUnderTheCommandsOwn() {
        SandboxInstance record = recordWith("{\"K\":\"v\",\"L\":\"l\"}");
        SandboxService.handleOf(raw(), record)
                .process()
                .exec("echo", ProcessOptions.defaults().withEnv(Map.of("L", "mine")));
        SandboxService.handleOf(raw(), record)
                .process()
                .spawn("sleep 1", ProcessOptions.defaults());

        assertThat(calls).hasSize(2);
        assertThat(calls.get(0).options().env())
                .containsExactlyInAnyOrderEntriesOf(Map.of("K", "v", "L", "mine"));
        assertThat(calls.get(1).options().env())
                .containsExactlyInAnyOrderEntriesOf(Map.of("K", "v", "L", "l"));
        assertThat(calls.get(0).command()).endsWith("echo").doesNotStartWith("unset");
    }

    @Test
    void openReadsTheEnvironmentFromTheRecordEachTime() {
        SandboxInstance[] record = {recordWith("{\"K\":\"first\"}")};
        SandboxHandle raw = raw();
        SandboxProvider provider =
                (SandboxProvider)
                        Proxy.newProxyInstance(
                                getClass().getClassLoader(),
                                new Class<?>[] {SandboxProvider.class},
                                (proxy, method, args) ->
                                        switch (method.getName()) {
                                            case "name" -> "docker";
                                            case "enabled", "available" -> true;
                                            case "resume" -> Optional.of(raw);
                                            default ->
                                                    throw new UnsupportedOperationException(
                                                            method.getName());
                                        });
        SandboxInstanceStore store =
                (SandboxInstanceStore)
                        Proxy.newProxyInstance(
                                getClass().getClassLoader(),
                                new Class<?>[] {SandboxInstanceStore.class},
                                (proxy, method, args) ->
                                        switch (method.getName()) {
                                            case "find" -> Optional.of(record[0]);
                                            case "upsert" -> args[0];
                                            default ->
                                                    throw new UnsupportedOperationException(
                                                            method.getName());
                                        });
        SandboxService service =
                new SandboxService(
                        new SandboxProviders(List.of(provider)),
                        store,
                        null,
                        Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

        service.open("t", "k").handle().process().exec("a", ProcessOptions.defaults());
        // Another server (or a later request) changed the record: the next open sees it.
        record[0] = recordWith("{\"K\":\"second\"}");
        service.open("t", "k").handle().process().exec("b", ProcessOptions.defaults());

        assertThat(calls.get(0).options().env()).containsEntry("K", "first");
        assertThat(calls.get(1).options().env()).containsEntry("K", "second");
    }

    @Test
    void aRemovedVariableIsUnsetUnlessTheCommandSetsIt() {
        SandboxInstance record = recordWith("{\"GONE\":null}");
        SandboxService.handleOf(raw(), record).process().exec("env", ProcessOptions.defaults());
        SandboxService.handleOf(raw(), record)
                .process()
                .exec("env", ProcessOptions.defaults().withEnv(Map.of("GONE", "x")));

        assertThat(calls.get(0).command()).startsWith("unset GONE; ").endsWith("env");
        assertThat(calls.get(0).options().env()).isEmpty();
        assertThat(calls.get(1).command()).doesNotContain("unset");
    }

    @Test
    void aPatchSetsAndRemovesAndTheRecordedFormRoundTrips() {
        EnvOverlay o =
                EnvOverlay.NONE
                        .with(Map.of("B", Optional.of("2"), "A", Optional.of("1")))
                        .with(Map.of("B", Optional.empty()));
        assertThat(o.json()).isEqualTo("{\"A\":\"1\",\"B\":null}");
        assertThat(EnvOverlay.parse(o.json())).isEqualTo(o);
        assertThat(o.values()).containsExactlyEntriesOf(Map.of("A", "1"));
        assertThat(EnvOverlay.NONE.json()).isNull();
        assertThat(EnvOverlay.parse(null)).isEqualTo(EnvOverlay.NONE);
    }

    @Test
    void aRecordedNameThatIsNotAShellNameIsIgnoredNotRun() {
        SandboxInstance record = recordWith("{\"X; rm -rf /\":null,\"OK\":null}");
        SandboxService.handleOf(raw(), record).process().exec("true", ProcessOptions.defaults());
        assertThat(calls.get(0).command()).startsWith("unset OK; ").doesNotContain("rm -rf");
    }
}
