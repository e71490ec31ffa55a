package dev.agentbox.it.container;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** A test-only JAX-RS application deployed by {@link InContainerIT}. */
@ApplicationPath("echo")
public class EchoApplication extends Application {}
