package dev.agentbox.it.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentbox.api.ProblemMapper;
import dev.agentbox.api.Problems;
import dev.agentbox.api.TenantTokens;
import dev.agentbox.platform.Incident;
import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.SandboxCapabilities;
import dev.agentbox.sandbox.spi.UnsupportedCapabilityException;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Arquillian against the running IT server: a micro-deployment whose CDI beans are injected into
 * the test inside Liberty, and whose echo resource lets the real JSON-B reader fail on a malformed
 * body.
 */
@ExtendWith(ArquillianExtension.class)
class InContainerIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.create(WebArchive.class, "agentbox-arquillian.war")
                .addClasses(
                        TenantTokens.class,
                        Problems.class,
                        ProblemCode.class,
                        Incident.class,
                        ProblemException.class,
                        ProblemMapper.class,
                        UnsupportedCapabilityException.class,
                        SandboxCapabilities.class,
                        SandboxCapabilities.Capability.class,
                        EchoApplication.class,
                        EchoResource.class,
                        EchoResource.Message.class)
                .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml");
    }

    @Inject TenantTokens tokens;

    @Test
    void cdiBeanInjectedInTheServerSeesTheServersTokenConfiguration() {
        assertFalse(tokens.devMode());
        assertEquals(Optional.of("tenant-a"), tokens.tenantFor("token-a"));
        assertEquals(Optional.empty(), tokens.tenantFor("token-a "));
        assertTrue(tokens.isAdmin("ops"));
        assertFalse(tokens.isAdmin("tenant-a"));
    }

    @Test
    void mapperTurnsUnsupportedCapabilityInto422WithProviderAndCapability() {
        var response =
                new ProblemMapper()
                        .toResponse(
                                new UnsupportedCapabilityException(
                                        "local", SandboxCapabilities.Capability.SNAPSHOTS));
        assertEquals(422, response.getStatus());
        String body = (String) response.getEntity();
        assertTrue(body.contains("\"capability\":\"snapshots\""), body);
        assertTrue(body.contains("\"provider\":\"local\""), body);
        assertTrue(body.contains("does not support the \\\"snapshots\\\" capability."), body);
    }

    @Test
    void mapperHidesInternalsOfUnexpectedErrors() {
        var response =
                new ProblemMapper().toResponse(new IllegalStateException("secret internals"));
        assertEquals(500, response.getStatus());
        String body = (String) response.getEntity();
        assertFalse(body.contains("secret internals"), body);
        assertTrue(body.contains("\"code\":\"internal-error\""), body);
    }

    @Test
    @RunAsClient
    void malformedJsonBodyIsProblemInvalidRequest(@ArquillianResource URL base) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI uri = base.toURI().resolve("echo/messages");

        HttpResponse<String> ok =
                http.send(
                        HttpRequest.newBuilder(uri)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"hi\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ok.statusCode(), ok.body());

        HttpResponse<String> bad =
                http.send(
                        HttpRequest.newBuilder(uri)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"text\": "))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(
                bad.headers()
                        .firstValue("Content-Type")
                        .orElse("")
                        .startsWith("application/problem+json"));
        assertTrue(bad.body().contains("\"code\":\"invalid-request\""), bad.body());
        assertFalse(bad.body().contains("Exception"), bad.body());
    }
}
