package dev.agentbox.run.journal;

/** The journal suite on Docker with the BusyBox image (BusyBox tail, head, base64 and ash). */
class DockerBusyboxJournalTest extends DockerJournalContract {

    @Override
    protected String image() {
        return "agentbox/sandbox:busybox";
    }
}
