package dev.agentbox.sandbox.docker;

/** The conformance suite on Docker with the Debian sandbox image. */
class DockerDebianTest extends DockerProviderContract {

    @Override
    protected String image() {
        return "agentbox/sandbox:bookworm";
    }

    @Override
    protected boolean hasGit() {
        return true;
    }

    @Override
    protected String httpServerCommand(int port) {
        // perl-base is in every Debian image; it is the only server-capable tool there
        return "exec perl -MIO::Socket::INET -e '$s=IO::Socket::INET->new(LocalPort=>" + port
                + ",Listen=>5,ReuseAddr=>1) or die $!; while($c=$s->accept){<$c>; "
                + "print $c \"HTTP/1.0 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nhello\"; close $c}'";
    }
}
