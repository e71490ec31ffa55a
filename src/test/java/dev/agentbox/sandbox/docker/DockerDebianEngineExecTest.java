package dev.agentbox.sandbox.docker;

/**
 * The conformance suite on Docker with the Debian image and the sandbox channel off: every command,
 * file operation and kill through the engine's exec — the path a remote engine, an image without
 * the helper or a dead helper falls back to.
 */
class DockerDebianEngineExecTest extends DockerDebianTest {

    @Override
    protected boolean channel() {
        return false;
    }
}
