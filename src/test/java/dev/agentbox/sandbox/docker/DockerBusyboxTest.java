package dev.agentbox.sandbox.docker;

/** The conformance suite on Docker with the BusyBox image (no git, BusyBox applets only). */
class DockerBusyboxTest extends DockerProviderContract {

    @Override
    protected String image() {
        return "agentbox/sandbox:busybox";
    }

    @Override
    protected boolean hasGit() {
        return false;
    }

    @Override
    protected String httpServerCommand(int port) {
        return "exec httpd -f -p " + port + " -h .";
    }
}
