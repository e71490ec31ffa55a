package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.platform.PageCursor;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SandboxInstanceStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link SandboxInstanceStore} must have; run on Derby and PostgreSQL. */
public abstract class SandboxInstanceStoreContract {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    protected abstract SandboxInstanceStore store();

    private final String tenant = "tenant-" + UUID.randomUUID();

    private SandboxInstance instance(String key, String containerId) {
        return new SandboxInstance(key, tenant, "docker", containerId, "t-1", T0, 60_000);
    }

    private static String key() {
        return UUID.randomUUID().toString().replace("-", "") + "00000000000000000000000000000000";
    }

    @Test
    void anUpsertedInstanceIsFoundWithEveryField() {
        String key = key();
        SandboxInstance stored = instance(key, "c1");
        stored.recordSnapshot("agentbox/snapshot:abc");
        stored.describe(Optional.of("agentbox/sandbox:busybox"), List.of(8080, 3000, 8080));
        store().upsert(stored);

        SandboxInstance found = store().find(tenant, key).orElseThrow();
        assertThat(found.key()).isEqualTo(key);
        assertThat(found.tenant()).isEqualTo(tenant);
        assertThat(found.provider()).isEqualTo("docker");
        assertThat(found.providerSandboxId()).isEqualTo("c1");
        assertThat(found.threadId()).contains("t-1");
        assertThat(found.snapshotId()).contains("agentbox/snapshot:abc");
        assertThat(found.createdAt()).isEqualTo(T0);
        assertThat(found.lastUsedAt()).isEqualTo(T0);
        assertThat(found.keepAliveMs()).isEqualTo(60_000);
        assertThat(found.image()).contains("agentbox/sandbox:busybox");
        assertThat(found.ports()).containsExactly(3000, 8080);
        assertThat(store().page(tenant, Optional.empty(), 10).get(0).ports())
                .containsExactly(3000, 8080);

        SandboxInstance plain = instance(key, "c1");
        plain.describe(Optional.empty(), List.of());
        store().upsert(plain);
        assertThat(store().find(tenant, key).orElseThrow().image()).isEmpty();
        assertThat(store().find(tenant, key).orElseThrow().ports()).isEmpty();
    }

    @Test
    void theRecordedEnvironmentIsStoredAndReplacedByAnUpsert() {
        String key = key();
        SandboxInstance stored = instance(key, "c1");
        stored.envJson("{\"K\":\"v\",\"GONE\":null}");
        store().upsert(stored);
        assertThat(store().find(tenant, key).orElseThrow().envJson())
                .isEqualTo("{\"K\":\"v\",\"GONE\":null}");

        SandboxInstance changed = store().find(tenant, key).orElseThrow();
        changed.envJson("{\"K\":\"" + "x".repeat(40_000) + "\"}");
        store().upsert(changed);
        assertThat(store().find(tenant, key).orElseThrow().envJson()).hasSize(40_008);
    }

    @Test
    void aLookupReadsTheInstantsJpaWroteWhateverTheServersTimeZone() {
        // find() reads its row with plain JDBC; a time zone applied on one side only would
        // shift lastUsedAt by hours and expire (or keep) sandboxes at the wrong time.
        TimeZone saved = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Chatham"));
        try {
            String key = key();
            SandboxInstance stored = instance(key, "c1");
            Instant used = T0.plusSeconds(90).plusNanos(123_456_000);
            stored.touch(used);
            store().upsert(stored);

            SandboxInstance found = store().find(tenant, key).orElseThrow();
            assertThat(found.createdAt()).isEqualTo(T0);
            assertThat(found.lastUsedAt()).isEqualTo(used);
            assertThat(store().list(tenant).get(0).lastUsedAt()).isEqualTo(used);
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @Test
    void aFoundRecordCanBeChangedAndStoredAgain() {
        String key = key();
        store().upsert(instance(key, "c1"));
        SandboxInstance found = store().find(tenant, key).orElseThrow();
        found.secretsInstalled(true);
        found.touch(T0.plusSeconds(5));
        store().upsert(found);

        SandboxInstance again = store().find(tenant, key).orElseThrow();
        assertThat(again.secretsInstalled()).isTrue();
        assertThat(again.lastUsedAt()).isEqualTo(T0.plusSeconds(5));
        assertThat(again.version()).isGreaterThan(found.version());
    }

    @Test
    void absentOptionalFieldsStayAbsent() {
        String key = key();
        store().upsert(new SandboxInstance(key, tenant, "local", "l1", null, T0, 1000));
        SandboxInstance found = store().find(tenant, key).orElseThrow();
        assertThat(found.threadId()).isEmpty();
        assertThat(found.snapshotId()).isEmpty();
        assertThat(found.envJson()).isNull();
    }

    @Test
    void upsertOfAnExistingKeyReplacesTheSandboxAndKeepsCreation() {
        String key = key();
        store().upsert(instance(key, "c1"));
        SandboxInstance replacement = instance(key, "c2");
        replacement.touch(T0.plusSeconds(30));
        store().upsert(replacement);

        SandboxInstance found = store().find(tenant, key).orElseThrow();
        assertThat(found.providerSandboxId()).isEqualTo("c2");
        assertThat(found.lastUsedAt()).isEqualTo(T0.plusSeconds(30));
        assertThat(found.createdAt()).isEqualTo(T0);
        assertThat(found.version()).isGreaterThan(0);
    }

    @Test
    void anotherTenantSeesNothing() {
        String key = key();
        store().upsert(instance(key, "c1"));
        assertThat(store().find("someone-else", key)).isEmpty();
        assertThat(store().delete("someone-else", key)).isFalse();
        assertThat(store().list("someone-else"))
                .extracting(SandboxInstance::key)
                .doesNotContain(key);
        assertThat(store().find(tenant, key)).isPresent();
    }

    @Test
    void deleteRemovesTheRecordOnce() {
        String key = key();
        store().upsert(instance(key, "c1"));
        assertThat(store().delete(tenant, key)).isTrue();
        assertThat(store().find(tenant, key)).isEmpty();
        assertThat(store().delete(tenant, key)).isFalse();
    }

    @Test
    void listShowsOnlyTheTenantsRecordsOldestFirst() {
        String older = key();
        String newer = key();
        store().upsert(
                        new SandboxInstance(
                                newer, tenant, "docker", "c2", null, T0.plusSeconds(1), 1000));
        store().upsert(instance(older, "c1"));
        assertThat(store().list(tenant))
                .extracting(SandboxInstance::key)
                .containsExactly(older, newer);
    }

    /** RN-06: sandboxes made in the same instant are split across pages by key. */
    @Test
    void aPageAfterACursorHoldsTheNewerRecordsAndTiesBreakByKey() {
        String a = "a" + key().substring(1);
        String b = "b" + key().substring(1);
        String c = "c" + key().substring(1);
        store().upsert(instance(b, "c2"));
        store().upsert(instance(a, "c1"));
        store().upsert(
                        new SandboxInstance(
                                c, tenant, "docker", "c3", null, T0.plusSeconds(1), 1000));
        store().upsert(
                        new SandboxInstance(
                                key(), "other-" + tenant, "docker", "c4", null, T0, 1000));

        assertThat(store().page(tenant, Optional.empty(), 1))
                .extracting(SandboxInstance::key)
                .containsExactly(a);
        // b was created with a: the tie goes by key, so it is on the next page, not lost.
        assertThat(store().page(tenant, Optional.of(new PageCursor(T0, a)), 10))
                .extracting(SandboxInstance::key)
                .containsExactly(b, c);
        assertThat(store().page(tenant, Optional.of(new PageCursor(T0.plusSeconds(1), c)), 10))
                .isEmpty();
    }

    @Test
    void idleMeansLastUsePlusKeepAliveBeforeNow() {
        String key = key();
        store().upsert(instance(key, "c-idle")); // keep-alive 60 s from T0
        assertThat(store().listIdle(T0.plusSeconds(60), 100))
                .extracting(SandboxInstance::key)
                .doesNotContain(key);
        assertThat(store().listIdle(T0.plusSeconds(60).plusMillis(1), 100))
                .extracting(SandboxInstance::key)
                .contains(key);
    }

    @Test
    void aProviderSandboxIsKnownWhileARecordPointsAtIt() {
        String key = key();
        String container = "c-" + UUID.randomUUID();
        assertThat(store().existsForProviderSandbox("docker", container)).isFalse();
        store().upsert(instance(key, container));
        assertThat(store().existsForProviderSandbox("docker", container)).isTrue();
        assertThat(store().existsForProviderSandbox("local", container)).isFalse();
    }

    @Test
    void listAllSpansTenantsOldestFirstUpToTheLimit() {
        String mine = key();
        String theirs = key();
        store().upsert(
                        new SandboxInstance(
                                theirs,
                                "other-" + tenant,
                                "docker",
                                "c-t",
                                null,
                                T0.minusSeconds(3600 * 24 * 365L),
                                1000));
        store().upsert(
                        new SandboxInstance(
                                mine,
                                tenant,
                                "docker",
                                "c-m",
                                null,
                                T0.minusSeconds(3600 * 24 * 364L),
                                1000));
        try {
            assertThat(store().listAll(10_000))
                    .extracting(SandboxInstance::key)
                    .containsSubsequence(theirs, mine);
            assertThat(store().listAll(1)).hasSize(1);
        } finally {
            store().delete("other-" + tenant, theirs);
        }
    }
}
