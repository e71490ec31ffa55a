package dev.agentbox.sandbox;

import dev.agentbox.platform.CanonicalJson;
import dev.agentbox.sandbox.SandboxSpec.GitSource;
import dev.agentbox.sandbox.SandboxSpec.LocalSource;
import dev.agentbox.sandbox.SandboxSpec.Reuse;
import dev.agentbox.sandbox.SandboxSpec.SetupStep;
import dev.agentbox.sandbox.spi.EgressPolicy;
import dev.agentbox.sandbox.spi.EgressRule;
import dev.agentbox.sandbox.spi.SandboxPolicy;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.Locale;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The stable identity of a sandbox: {@code sha256} (hex, 64 chars) of the canonical JSON ({@link
 * CanonicalJson}) of the key document
 *
 * <pre>{"v":1,"tenant":…,"definitionId":…,"provider":…,"image":…,
 *  "workspace":{"source":{…},"setup":[…],"env":{…}},
 *  "policy":{"network":…,"memoryMb"?,"cpus"?,"pids"?,"ports":[…],
 *            "egress"? (only when network is egress):{"allow":[…],"deny":[…]}},
 *  "threadId"? (only when reuse is thread), "nonce"? (only when reuse is none)}</pre>
 *
 * Egress entries are written as {@link EgressRule#text()} in the order given, so two spellings of
 * one entry ({@code API.Anthropic.com.}, {@code api.anthropic.com}) are one key. Every other
 * network's document has no {@code egress} member at all, as before egress existed: the keys of
 * existing sandboxes do not change.
 *
 * <p>Same inputs give the same key on every server; any change of the listed inputs gives another.
 * Secrets are not part of it, so changing only a secret resumes the same sandbox; lifecycle
 * settings other than reuse are not part of it either.
 */
public final class SandboxKey {

    private SandboxKey() {}

    /**
     * The key for {@code spec} of {@code tenant}, with {@code image} resolved (the provider default
     * when unset).
     */
    public static String of(String tenant, SandboxSpec spec, String image) {
        return CanonicalJson.sha256Of(document(tenant, spec, image));
    }

    static JsonObject document(String tenant, SandboxSpec spec, String image) {
        JsonObjectBuilder doc =
                Json.createObjectBuilder()
                        .add("v", 1)
                        .add("tenant", tenant)
                        .add("definitionId", spec.definitionId())
                        .add("provider", spec.provider())
                        .add("image", image)
                        .add("workspace", workspace(spec.workspace()))
                        .add("policy", policy(spec.policy()));
        if (spec.lifecycle().reuse() == Reuse.THREAD) {
            doc.add("threadId", spec.threadId().orElseThrow());
        } else if (spec.lifecycle().reuse() == Reuse.NONE) {
            doc.add("nonce", UUID.randomUUID().toString());
        }
        return doc.build();
    }

    private static JsonObject workspace(SandboxSpec.Workspace w) {
        JsonObjectBuilder source = Json.createObjectBuilder();
        if (w.source() instanceof GitSource g) {
            source.add("type", "git").add("url", g.url()).add("depth", g.depth());
            g.ref().ifPresent(r -> source.add("ref", r));
        } else if (w.source() instanceof LocalSource l) {
            source.add("type", "local").add("path", l.path());
        } else {
            source.add("type", "none");
        }
        JsonArrayBuilder setup = Json.createArrayBuilder();
        for (SetupStep step : w.setup()) {
            if (step.parallel()) {
                JsonArrayBuilder group = Json.createArrayBuilder();
                step.commands().forEach(group::add);
                setup.add(group);
            } else {
                setup.add(step.commands().get(0));
            }
        }
        JsonObjectBuilder env = Json.createObjectBuilder();
        new TreeMap<>(w.env()).forEach(env::add);
        return Json.createObjectBuilder()
                .add("source", source)
                .add("setup", setup)
                .add("env", env)
                .build();
    }

    private static JsonObject policy(SandboxPolicy p) {
        JsonObjectBuilder b =
                Json.createObjectBuilder()
                        .add("network", p.network().name().toLowerCase(Locale.ROOT));
        p.memoryMb().ifPresent(m -> b.add("memoryMb", m));
        p.cpus().ifPresent(c -> b.add("cpus", c));
        p.pids().ifPresent(n -> b.add("pids", n));
        JsonArrayBuilder ports = Json.createArrayBuilder();
        p.ports().forEach(ports::add);
        b.add("ports", ports);
        if (p.network() == SandboxPolicy.Network.EGRESS) {
            b.add("egress", egress(p.egress()));
        }
        return b.build();
    }

    private static JsonObject egress(EgressPolicy e) {
        JsonArrayBuilder allow = Json.createArrayBuilder();
        e.allow().forEach(r -> allow.add(r.text()));
        JsonArrayBuilder deny = Json.createArrayBuilder();
        e.deny().forEach(r -> deny.add(r.text()));
        return Json.createObjectBuilder().add("allow", allow).add("deny", deny).build();
    }

    /** For logs: the first 12 characters are plenty to tell sandboxes apart. */
    public static String shortForm(String key) {
        return key.length() > 12 ? key.substring(0, 12) : key;
    }
}
