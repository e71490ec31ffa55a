#!/usr/bin/perl
# The in-sandbox client of bench/tool-bridge (ToolBridgeBench): times, with the sandbox's own
# monotonic clock, N calls of one HTTP tool made three ways, interleaved (each iteration makes one
# call of each kind, the order rotating, so the drift of a shared machine hits all three alike):
#   b  through the run's tool bridge: an MCP tools/call on the stdio of the relay
#      (agentbox-sandboxd mcp DIR), as an agent's CLI makes it;
#   k  straight to the tool's server over HTTP/1.1 on one kept-alive connection;
#   c  straight to the tool's server on a new TCP connection per call.
# Prints "kind microseconds start end" per measured call, start and end in nanoseconds of
# CLOCK_MONOTONIC, which a container shares with its host (warm-up calls are not printed); dies on
# any answer that is not the tool's.
# Usage: perl tool-round-trip.pl MAILBOX_DIR HOST PORT PATH N WARMUP (token in AGENTBOX_MCP_TOKEN)
use strict;
use warnings;
use IPC::Open2;
use IO::Socket::INET;
use Socket qw(IPPROTO_TCP TCP_NODELAY);
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my ($dir, $host, $port, $path, $n, $warm) = @ARGV;
my $args = '{"city":"Paris"}';
my $expect = 'sunny';

my $pid = open2(my $from, my $to, '/opt/agentbox/bin/agentbox-sandboxd', 'mcp', $dir);
$to->autoflush(1);
my $id = 0;

sub rpc {
    my ($method, $params) = @_;
    $id++;
    print $to qq({"jsonrpc":"2.0","id":$id,"method":"$method","params":$params}\n);
    while (defined(my $line = <$from>)) {
        return $line if $line =~ /"id":$id[,}]/;
    }
    die "the relay closed its stdout\n";
}

rpc('initialize',
    '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}');
print $to qq({"jsonrpc":"2.0","method":"notifications/initialized"}\n);

sub bridged {
    my $answer = rpc('tools/call', qq({"name":"weather","arguments":$args}));
    die "bridged call failed: $answer" unless $answer =~ /$expect/ && $answer !~ /"isError":true/;
}

sub connect_tool {
    my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Proto => 'tcp')
        or die "cannot connect to $host:$port: $!\n";
    setsockopt($s, IPPROTO_TCP, TCP_NODELAY, 1);
    $s->autoflush(1);
    return $s;
}

sub post {
    my ($s) = @_;
    print $s "POST $path HTTP/1.1\r\nHost: $host:$port\r\nContent-Type: application/json\r\n"
        . "Content-Length: " . length($args) . "\r\n\r\n$args";
    my $len = -1;
    while (defined(my $h = <$s>)) {
        last if $h eq "\r\n";
        $len = $1 if $h =~ /^content-length:\s*(\d+)/i;
    }
    die "no Content-Length in the tool's answer\n" if $len < 0;
    my $body = '';
    while (length($body) < $len) {
        my $got = read($s, $body, $len - length($body), length($body));
        die "the tool's server closed the connection\n" unless $got;
    }
    die "direct call failed: $body\n" unless $body =~ /$expect/;
}

my $kept = connect_tool();
my %call = (
    b => \&bridged,
    k => sub { post($kept) },
    c => sub { my $s = connect_tool(); post($s); close($s); },
);
my @kinds = ('b', 'k', 'c');
$| = 1;
for my $i (1 .. $warm + $n) {
    for my $j (0 .. 2) {
        my $kind = $kinds[($i + $j) % 3];
        my $t0 = clock_gettime(CLOCK_MONOTONIC);
        $call{$kind}->();
        my $t1 = clock_gettime(CLOCK_MONOTONIC);
        printf "%s %.0f %.0f %.0f\n", $kind, ($t1 - $t0) * 1e6, $t0 * 1e9, $t1 * 1e9
            if $i > $warm;
    }
}
close($to);
waitpid($pid, 0);
