package dev.agentbox.api;

import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.store.SandboxInstance;
import dev.agentbox.sandbox.store.SecretNames;
import java.time.Instant;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A sandbox as the API shows it. Null members are left out of the JSON (absent, not null). Its
 * OpenAPI schema is {@code Sandbox} of {@code META-INF/openapi.yaml}.
 */
@Schema(name = "Sandbox")
public record SandboxView(
        String key,
        String provider,
        String providerSandboxId,
        String outcome,
        String workspaceRoot,
        SandboxCapabilities capabilities,
        String threadId,
        Instant createdAt,
        Instant lastUsedAt,
        String snapshotId,
        String image,
        List<Integer> ports,
        Secrets secrets) {

    /**
     * The names of the sandbox's secrets by form (never a value or a placeholder), as the server
     * recorded them at its last ensure or secrets patch; each list absent when empty.
     */
    @Schema(name = "SandboxSecrets")
    public record Secrets(List<String> brokered, List<String> plain) {

        static Secrets of(SecretNames names) {
            if (names.isEmpty()) {
                return null;
            }
            return new Secrets(
                    names.brokered().isEmpty() ? null : names.brokered(),
                    names.plain().isEmpty() ? null : names.plain());
        }
    }

    /** Every provider maps its workspace to this path; relative API paths resolve against it. */
    public static final String WORKSPACE_ROOT = "/workspace";

    public static SandboxView of(
            SandboxInstance i, SandboxCapabilities capabilities, String outcome) {
        return new SandboxView(
                i.key(),
                i.provider(),
                i.providerSandboxId(),
                outcome,
                WORKSPACE_ROOT,
                capabilities,
                i.threadId().orElse(null),
                i.createdAt(),
                i.lastUsedAt(),
                i.snapshotId().orElse(null),
                i.image().orElse(null),
                i.ports().isEmpty() ? null : i.ports(),
                Secrets.of(i.secretNames()));
    }
}
