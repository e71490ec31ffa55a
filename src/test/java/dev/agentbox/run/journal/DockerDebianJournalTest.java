package dev.agentbox.run.journal;

/** The journal suite on Docker with the Debian sandbox image (GNU coreutils tail, dash). */
class DockerDebianJournalTest extends DockerJournalContract {

    @Override
    protected String image() {
        return "agentbox/sandbox:bookworm";
    }
}
