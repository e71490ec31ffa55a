package dev.agentbox.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import dev.agentbox.sandbox.spi.ImageAllowlist;
import dev.agentbox.testing.PinnedAnswers;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The ensure body's answers, pinned byte for byte: for each body the exact problem (status, code,
 * {@code field} and any {@code ceiling}, detail) or the exact spec. Bodies with several faults pin
 * which one is named first, so the order in which the parser looks is part of the contract too.
 */
class EnsureRefusalsTest {

    /**
     * One case per two lines: the body, then {@code =>} and the answer. A body may start with the
     * rules it is read under ({@code B:} bridge and local sources off, {@code C:} local sources on
     * without a root; default: all on, local root {@code /srv/src}, at most 8 egress rules). {@code
     * {{REP:s:n}}} stands for {@code s} repeated {@code n} times, {@code {{REPJ:s:n}}} for {@code
     * n} copies of the JSON value {@code s} separated by commas; control characters in answers are
     * shown as {@code <U+XXXX>}.
     */
    static final String CASES =
            """
            []
            => 400 invalid-request {field=body} body must be a JSON object
            "sandbox"
            => 400 invalid-request {field=body} body must be a JSON object
            42
            => 400 invalid-request {field=body} body must be a JSON object
            null
            => 400 invalid-request {field=body} body must be a JSON object
            true
            => 400 invalid-request {field=body} body must be a JSON object
            {}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"polcy":{}}
            => 400 invalid-request {field=polcy} polcy is not a known field
            {"definitionId":"x","zzz":1,"policy":5}
            => 400 invalid-request {field=zzz} zzz is not a known field
            {"definitionId":5,"zzz":1}
            => 400 invalid-request {field=zzz} zzz is not a known field
            {"definitionId":5}
            => 400 invalid-request {field=definitionId} definitionId must be a string
            {"definitionId":""}
            => 400 invalid-request {field=definitionId} definitionId must not be empty
            {"definitionId":"   "}
            => 400 invalid-request {field=definitionId} definitionId must not be empty
            {"definitionId":"\\n"}
            => 400 invalid-request {field=definitionId} definitionId must not be empty
            {"definitionId":"\\u0001"}
            => 400 invalid-request {field=definitionId} definitionId must hold printable characters only (no control characters)
            {"definitionId":"\\u2028"}
            => 400 invalid-request {field=definitionId} definitionId must not be empty
            {"definitionId":"{{REP:d:201}}"}
            => 400 invalid-request {field=definitionId} definitionId is longer than 200 characters
            {"definitionId":"{{REP:d:200}}"}
            => ok dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"definitionId":"a\\u0000b"}
            => 400 invalid-request {field=definitionId} definitionId must hold printable characters only (no control characters)
            {"definitionId":"a\\r\\nINFO forged"}
            => 400 invalid-request {field=definitionId} definitionId must hold printable characters only (no control characters)
            {"definitionId":"a\\ud800b"}
            => 400 invalid-request {field=definitionId} definitionId must hold printable characters only (no control characters)
            {"definitionId":"\\u0001{{REP:d:201}}"}
            => 400 invalid-request {field=definitionId} definitionId is longer than 200 characters
            {"definitionId":"{{REP:d:1048576}}"}
            => 400 invalid-request {field=definitionId} definitionId is longer than 200 characters
            {"definitionId":true}
            => 400 invalid-request {field=definitionId} definitionId must be a string
            {"definitionId":[]}
            => 400 invalid-request {field=definitionId} definitionId must be a string
            {"definitionId":{}}
            => 400 invalid-request {field=definitionId} definitionId must be a string
            {"definitionId":null}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"definitionId":1.5}
            => 400 invalid-request {field=definitionId} definitionId must be a string
            {"provider":3}
            => 400 invalid-request {field=provider} provider must be a string
            {"provider":""}
            => 400 invalid-request {field=provider} provider must not be empty
            {"provider":"nope"}
            => ok default nope Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"provider":"{{REP:p:300}}"}
            => 400 invalid-request {field=provider} provider is longer than 200 characters
            {"provider":"a\\tb"}
            => 400 invalid-request {field=provider} provider must hold printable characters only (no control characters)
            {"image":7}
            => 400 invalid-request {field=image} image must be a string
            {"image":""}
            => 400 invalid-request {field=image} image must not be empty
            {"image":" "}
            => 400 invalid-request {field=image} image must not be empty
            {"image":"NotAllowed"}
            => 400 image-not-allowed {field=image} image "NotAllowed" is not on this server's image allowlist; name one of its repo:tag images exactly
            {"image":"{{REP:i:256}}"}
            => 400 invalid-request {field=image} image must be a printable repo:tag name of at most 255 characters
            {"image":"a\\tb"}
            => 400 invalid-request {field=image} image must be a printable repo:tag name of at most 255 characters
            {"image":"agentbox/sandbox:bookworm"}
            => ok default docker Optional[agentbox/sandbox:bookworm] Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"image":"NotAllowed","threadId":5}
            => 400 image-not-allowed {field=image} image "NotAllowed" is not on this server's image allowlist; name one of its repo:tag images exactly
            {"image":"","threadId":5}
            => 400 invalid-request {field=image} image must not be empty
            {"image":"NotAllowed","workspace":5}
            => 400 image-not-allowed {field=image} image "NotAllowed" is not on this server's image allowlist; name one of its repo:tag images exactly
            {"image":"{{REP:x:200}}"}
            => 400 image-not-allowed {field=image} image "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" is not on this server's image allowlist; name one of its repo:tag images exactly
            {"threadId":5}
            => 400 invalid-request {field=threadId} threadId must be a string
            {"threadId":""}
            => 400 invalid-request {field=threadId} threadId must not be empty
            {"threadId":"{{REP:t:300}}"}
            => 400 invalid-request {field=threadId} threadId is longer than 200 characters
            {"threadId":"t\\u001b[31m"}
            => 400 invalid-request {field=threadId} threadId must hold printable characters only (no control characters)
            {"threadId":"t"}
            => ok default docker Optional.empty Optional[t] NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=THREAD, snapshot=NONE, keepAliveMs=1800000]
            {"threadId":"{{REP:t:300}}","lifecycle":{"reuse":"thread"}}
            => 400 invalid-request {field=threadId} threadId is longer than 200 characters
            {"definitionId":"","provider":5}
            => 400 invalid-request {field=definitionId} definitionId must not be empty
            {"provider":"","definitionId":5}
            => 400 invalid-request {field=definitionId} definitionId must be a string
            {"threadId":"","definitionId":"\\u0001"}
            => 400 invalid-request {field=definitionId} definitionId must hold printable characters only (no control characters)
            {"workspace":[]}
            => 400 invalid-request {field=workspace} workspace must be a JSON object
            {"workspace":"x"}
            => 400 invalid-request {field=workspace} workspace must be a JSON object
            {"workspace":5}
            => 400 invalid-request {field=workspace} workspace must be a JSON object
            {"workspace":null}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"bogus":1}}
            => 400 invalid-request {field=workspace.bogus} workspace.bogus is not a known field
            {"workspace":{"bogus":1,"env":5}}
            => 400 invalid-request {field=workspace.bogus} workspace.bogus is not a known field
            {"workspace":{"env":5,"secrets":5}}
            => 400 invalid-request {field=workspace.secrets} workspace.secrets must be a JSON object
            {"workspace":{"setup":5,"source":5}}
            => 400 invalid-request {field=workspace.source} workspace.source must be a JSON object
            {"workspace":{"env":5,"setup":5}}
            => 400 invalid-request {field=workspace.setup} workspace.setup must be a JSON array
            {"workspace":{"secrets":[]}}
            => 400 invalid-request {field=workspace.secrets} workspace.secrets must be a JSON object
            {"workspace":{"secrets":{"1 bad":"v"}}}
            => 400 invalid-request {field=workspace.secrets} workspace.secrets has an invalid variable name "1 bad"
            {"workspace":{"secrets":{"":"v"}}}
            => 400 invalid-request {field=workspace.secrets} workspace.secrets has an invalid variable name ""
            {"workspace":{"secrets":{"K":5}}}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K must be a string or {"value","brokerHosts"}
            {"workspace":{"secrets":{"K":true}}}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K must be a string or {"value","brokerHosts"}
            {"workspace":{"secrets":{"K":"a\\u0000"}}}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K must not contain NUL
            {"workspace":{"secrets":{"K":null}}}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K must be a string or {"value","brokerHosts"}
            {"workspace":{"secrets":{"K":[]}}}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K must be a string or {"value","brokerHosts"}
            {"workspace":{"secrets":{"K":{}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value is required
            {"workspace":{"secrets":{"K":{"value":5}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must be a string
            {"workspace":{"secrets":{"K":{"value":""}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must not be empty
            {"workspace":{"secrets":{"K":{"value":" \\n"}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must not be empty
            {"workspace":{"secrets":{"K":{"value":"a\\nb"}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must be a non-empty header value (no NUL, CR or LF)
            {"workspace":{"secrets":{"K":{"value":"a\\rb"}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must be a non-empty header value (no NUL, CR or LF)
            {"workspace":{"secrets":{"K":{"value":"a\\u0000b"}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must be a non-empty header value (no NUL, CR or LF)
            {"workspace":{"secrets":{"K":{"value":null}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value is required
            {"workspace":{"secrets":{"K":{"value":"v"}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts} workspace.secrets.K.brokerHosts must name at least one host
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":[]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts} workspace.secrets.K.brokerHosts must name at least one host
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":null}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts} workspace.secrets.K.brokerHosts must name at least one host
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":"x"}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts} workspace.secrets.K.brokerHosts must be a JSON array
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["h1.example","h2.example","h3.example","h4.example","h5.example","h6.example","h7.example","h8.example","h9.example","h10.example","h11.example","h12.example","h13.example","h14.example","h15.example","h16.example","h17.example"]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts} workspace.secrets.K.brokerHosts names more than 16 hosts
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":[5]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] must be a host name
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":[null]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] must be a host name
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["a.example:443"]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] must be one exact host name, without a port or *.
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["*.a.example"]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] must be one exact host name, without a port or *.
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["a.example","a.example"]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[1]} workspace.secrets.K.brokerHosts[1] repeats a.example
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["a.example","A.EXAMPLE"]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[1]} workspace.secrets.K.brokerHosts[1] repeats a.example
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":[""]}}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] must not be empty
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["api.anthropic.com"]}}}}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K is brokered, which needs policy.network "egress"
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["api.anthropic.com"]}}},"policy":{"network":"egress"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={K=v@[api.anthropic.com]} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["b.example"]}}},"policy":{"network":"egress"}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] is not a host this sandbox's egress policy allows
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["a.example"]}}},"policy":{"network":"egress","egress":{"allow":["a.example"]}}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={K=v@[a.example]} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[EgressRule[kind=HOST, value=a.example, port=OptionalInt.empty]], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["a.example"]}}},"policy":{"network":"egress","egress":{"allow":["*.example"],"deny":["a.example"]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] is too broad: *. needs a domain below the top level (*.example.com)
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["x.example"]}}},"policy":{"network":"egress","egress":{"allow":["*.example"]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] is too broad: *. needs a domain below the top level (*.example.com)
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["a.example"]}}},"policy":{"network":"egress","egress":{"allow":["a.example:8443"]}}}
            => 400 invalid-request {field=workspace.secrets.K.brokerHosts[0]} workspace.secrets.K.brokerHosts[0] is not a host this sandbox's egress policy allows
            {"workspace":{"secrets":{"K":{"value":"v","bogus":1}}}}
            => 400 invalid-request {field=workspace.secrets.K.bogus} workspace.secrets.K.bogus is not a known field
            {"workspace":{"secrets":{"K":{"bogus":1,"value":5}}}}
            => 400 invalid-request {field=workspace.secrets.K.bogus} workspace.secrets.K.bogus is not a known field
            {"workspace":{"secrets":{"K":{"brokerHosts":[],"value":5}}}}
            => 400 invalid-request {field=workspace.secrets.K.value} workspace.secrets.K.value must be a string
            {"workspace":{"secrets":{"1x":"a","B":5}}}
            => 400 invalid-request {field=workspace.secrets} workspace.secrets has an invalid variable name "1x"
            {"workspace":{"secrets":{"A":"\\u0000","1x":"b"}}}
            => 400 invalid-request {field=workspace.secrets.A} workspace.secrets.A must not contain NUL
            {"workspace":{"secrets":{"K":{"value":"v","brokerHosts":["api.anthropic.com"]}}},"lifecycle":5}
            => 400 invalid-request {field=workspace.secrets.K} workspace.secrets.K is brokered, which needs policy.network "egress"
            {"workspace":{"secrets":{"K":"v","L":"w"},"env":{"B":"2","A":"1"}}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={A=1, B=2} secrets={K=v, L=w} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":5}}
            => 400 invalid-request {field=workspace.source} workspace.source must be a JSON object
            {"workspace":{"source":[]}}
            => 400 invalid-request {field=workspace.source} workspace.source must be a JSON object
            {"workspace":{"source":{}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type is required (git, none or local)
            {"workspace":{"source":null}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"type":5}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type must be a string
            {"workspace":{"source":{"type":""}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type must not be empty
            {"workspace":{"source":{"type":"svn"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type must be git, none or local, not "svn"
            {"workspace":{"source":{"type":"GIT"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type must be git, none or local, not "GIT"
            {"workspace":{"source":{"type":"none","url":"x"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is not a known field
            {"workspace":{"source":{"type":"none"}}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"url":"x"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type is required (git, none or local)
            {"workspace":{"source":{"url":"x","type":"svn"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type must be git, none or local, not "svn"
            {"workspace":{"source":{"type":"git"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is required for a git source
            {"workspace":{"source":{"type":"git","url":5}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must be a string
            {"workspace":{"source":{"type":"git","url":""}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not be empty
            {"workspace":{"source":{"type":"git","url":null}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is required for a git source
            {"workspace":{"source":{"type":"git","url":"git://h/r\\n"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not contain control characters
            {"workspace":{"source":{"type":"git","url":"{{REP:u:8193}}"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is longer than 8192 characters
            {"workspace":{"source":{"type":"git","url":"-u{{REP:u:8193}}"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is longer than 8192 characters
            {"workspace":{"source":{"type":"git","url":"--upload-pack=x"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not start with '-'
            {"workspace":{"source":{"type":"git","url":"https://user:pw@h/r"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not carry credentials; pass them as workspace.secrets GIT_TOKEN (and GIT_USERNAME)
            {"workspace":{"source":{"type":"git","url":"https://tok@h/r"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not carry credentials; pass them as workspace.secrets GIT_TOKEN (and GIT_USERNAME)
            {"workspace":{"source":{"type":"git","url":"git@h:r"}}}
            => ok default docker Optional.empty Optional.empty GitSource[url=git@h:r, ref=Optional.empty, depth=0] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"type":"git","url":"git://h/r","path":"x"}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path is not a known field
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":5}}}
            => 400 invalid-request {field=workspace.source.ref} workspace.source.ref must be a string
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":""}}}
            => 400 invalid-request {field=workspace.source.ref} workspace.source.ref must not be empty
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":"-x"}}}
            => 400 invalid-request {field=workspace.source.ref} workspace.source.ref must be a branch, tag or commit name
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":"a\\u0001"}}}
            => 400 invalid-request {field=workspace.source.ref} workspace.source.ref must not contain control characters
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":"-\\u0001"}}}
            => 400 invalid-request {field=workspace.source.ref} workspace.source.ref must not contain control characters
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":"main"}}}
            => ok default docker Optional.empty Optional.empty GitSource[url=git://h/r, ref=Optional[main], depth=0] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":-1}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth must be 0 (full history) or a positive count of commits
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":1.5}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth must be an integer
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":1099511627776}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth must be 0 (full history) or a positive count of commits
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":2147483647}}}
            => ok default docker Optional.empty Optional.empty GitSource[url=git://h/r, ref=Optional.empty, depth=2147483647] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":1e30}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth must be an integer
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":99999999999999999999}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth is out of range
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":"1"}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth must be an integer
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":1e2}}}
            => 400 invalid-request {field=workspace.source.depth} workspace.source.depth must be an integer
            {"workspace":{"source":{"type":"git","url":"git://h/r","depth":null}}}
            => ok default docker Optional.empty Optional.empty GitSource[url=git://h/r, ref=Optional.empty, depth=0] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"type":"git","url":"-x","ref":5}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not start with '-'
            {"workspace":{"source":{"type":"git","url":"https://u:p@h/r","ref":5}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url must not carry credentials; pass them as workspace.secrets GIT_TOKEN (and GIT_USERNAME)
            {"workspace":{"source":{"type":"git","ref":5}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is required for a git source
            {"workspace":{"source":{"type":"local","path":"x"}}}
            => ok default docker Optional.empty Optional.empty LocalSource[path=x] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"source":{"type":"local","path":"../etc"}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path "../etc" leaves the local source root
            {"workspace":{"source":{"type":"local","path":"/etc"}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path "/etc" leaves the local source root
            {"workspace":{"source":{"type":"local"}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path is required for a local source
            {"workspace":{"source":{"type":"local","path":""}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path must not be empty
            {"workspace":{"source":{"type":"local","path":5}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path must be a string
            {"workspace":{"source":{"type":"local","path":"a\\u0001"}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path must not contain control characters
            {"workspace":{"source":{"type":"local","url":"x"}}}
            => 400 invalid-request {field=workspace.source.url} workspace.source.url is not a known field
            {"workspace":{"source":{"type":"git","url":"git://h/r","ref":"main","depth":1},"setup":["a",["b","c"]],"secrets":{"K":"v"}},"policy":{"network":"bridge","ports":[8080]},"lifecycle":{"snapshot":"after-setup"}}
            => ok default docker Optional.empty Optional.empty GitSource[url=git://h/r, ref=Optional[main], depth=1] [SetupStep[commands=[a], parallel=false], SetupStep[commands=[b, c], parallel=true]] env={} secrets={K=v} brokered={} SandboxPolicy[network=BRIDGE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[8080], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=AFTER_SETUP, keepAliveMs=1800000]
            {"workspace":{"setup":{"a":1}}}
            => 400 invalid-request {field=workspace.setup} workspace.setup must be a JSON array
            {"workspace":{"setup":[1,2]}}
            => 400 invalid-request {field=workspace.setup[0]} workspace.setup[0] must be a command string or an array of command strings
            {"workspace":{"setup":[""]}}
            => 400 invalid-request {field=workspace.setup[0]} workspace.setup[0] is an empty command
            {"workspace":{"setup":[" "]}}
            => 400 invalid-request {field=workspace.setup[0]} workspace.setup[0] is an empty command
            {"workspace":{"setup":["a\\u0000"]}}
            => 400 invalid-request {field=workspace.setup[0]} workspace.setup[0] must not contain NUL
            {"workspace":{"setup":[[]]}}
            => 400 invalid-request {field=workspace.setup[0]} workspace.setup[0] is an empty parallel group
            {"workspace":{"setup":[["a",1]]}}
            => 400 invalid-request {field=workspace.setup[0][1]} workspace.setup[0][1] must be a command string
            {"workspace":{"setup":[["a",""]]}}
            => 400 invalid-request {field=workspace.setup[0][1]} workspace.setup[0][1] is an empty command
            {"workspace":{"setup":[["a\\u0000"]]}}
            => 400 invalid-request {field=workspace.setup[0][0]} workspace.setup[0][0] must not contain NUL
            {"workspace":{"setup":["ok",null]}}
            => 400 invalid-request {field=workspace.setup[1]} workspace.setup[1] must be a command string or an array of command strings
            {"workspace":{"setup":["ok",[1]]}}
            => 400 invalid-request {field=workspace.setup[1][0]} workspace.setup[1][0] must be a command string
            {"workspace":{"setup":["ok",{}]}}
            => 400 invalid-request {field=workspace.setup[1]} workspace.setup[1] must be a command string or an array of command strings
            {"workspace":{"setup":[{{REPJ:"s":201}}]}}
            => 400 invalid-request {field=workspace.setup} workspace.setup has more than 200 steps
            {"workspace":{"setup":[{{REPJ:"s":200}}]}}
            => ok default docker Optional.empty Optional.empty NoSource[] [SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false], SetupStep[commands=[s], parallel=false]] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"setup":[1,{{REPJ:"s":201}}]}}
            => 400 invalid-request {field=workspace.setup} workspace.setup has more than 200 steps
            {"workspace":{"setup":null}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"workspace":{"env":[1]}}
            => 400 invalid-request {field=workspace.env} workspace.env must be a JSON object
            {"workspace":{"env":{"A=B":"x"}}}
            => 400 invalid-request {field=workspace.env} workspace.env has an invalid variable name "A=B"
            {"workspace":{"env":{"A":"x\\u0000y"}}}
            => 400 invalid-request {field=workspace.env.A} workspace.env.A must not contain NUL
            {"workspace":{"env":{"A":5}}}
            => 400 invalid-request {field=workspace.env.A} workspace.env.A must be a string
            {"workspace":{"env":{"A":null}}}
            => 400 invalid-request {field=workspace.env.A} workspace.env.A must be a string
            {"workspace":{"env":{"A":5,"1":"x"}}}
            => 400 invalid-request {field=workspace.env.A} workspace.env.A must be a string
            {"workspace":{"env":{"1":"x","A":5}}}
            => 400 invalid-request {field=workspace.env} workspace.env has an invalid variable name "1"
            {"workspace":{"env":{"_a1":"x"}}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={_a1=x} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":"none"}
            => 400 invalid-request {field=policy} policy must be a JSON object
            {"policy":[]}
            => 400 invalid-request {field=policy} policy must be a JSON object
            {"policy":null}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"bogus":1}}
            => 400 invalid-request {field=policy.bogus} policy.bogus is not a known field
            {"policy":{"network":"host"}}
            => 400 invalid-request {field=policy.network} policy.network must be "none", "bridge" or "egress"
            {"policy":{"network":5}}
            => 400 invalid-request {field=policy.network} policy.network must be a string
            {"policy":{"network":""}}
            => 400 invalid-request {field=policy.network} policy.network must not be empty
            {"policy":{"network":"\\n"}}
            => 400 invalid-request {field=policy.network} policy.network must not be empty
            {"policy":{"network":"bridge"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=BRIDGE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"network":"NONE"}}
            => 400 invalid-request {field=policy.network} policy.network must be "none", "bridge" or "egress"
            {"policy":{"memoryMb":"lots"}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be an integer
            {"policy":{"memoryMb":-5}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be at least 6
            {"policy":{"memoryMb":99999999999999999999}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb is out of range
            {"policy":{"memoryMb":1}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be at least 6
            {"policy":{"memoryMb":5}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be at least 6
            {"policy":{"memoryMb":6}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt[6], cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"memoryMb":8193}}
            => 400 invalid-request {ceiling=8192, field=policy.memoryMb} policy.memoryMb is above this server's ceiling of 8192
            {"policy":{"memoryMb":1.5}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be an integer
            {"policy":{"memoryMb":1e3}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be an integer
            {"policy":{"memoryMb":4294967302}}
            => 400 invalid-request {ceiling=8192, field=policy.memoryMb} policy.memoryMb is above this server's ceiling of 8192
            {"policy":{"pids":-1}}
            => 400 invalid-request {field=policy.pids} policy.pids must be at least 1
            {"policy":{"pids":0}}
            => 400 invalid-request {field=policy.pids} policy.pids must be at least 1
            {"policy":{"pids":9223372036854775808}}
            => 400 invalid-request {field=policy.pids} policy.pids is out of range
            {"policy":{"pids":1.5}}
            => 400 invalid-request {field=policy.pids} policy.pids must be an integer
            {"policy":{"pids":4097}}
            => 400 invalid-request {ceiling=4096, field=policy.pids} policy.pids is above this server's ceiling of 4096
            {"policy":{"pids":4096}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt[4096], ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"cpus":200}}
            => 400 invalid-request {ceiling=4.0, field=policy.cpus} policy.cpus is above this server's ceiling of 4
            {"policy":{"cpus":-1}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"cpus":1e308}}
            => 400 invalid-request {ceiling=4.0, field=policy.cpus} policy.cpus is above this server's ceiling of 4
            {"policy":{"cpus":1e-9}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"cpus":"1"}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"cpus":0.01}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble[0.01], pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"cpus":0.00999999999999999999999}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble[0.01], pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"cpus":1e400}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"cpus":-1e400}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"cpus":4}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble[4.0], pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"cpus":4.5}}
            => 400 invalid-request {ceiling=4.0, field=policy.cpus} policy.cpus is above this server's ceiling of 4
            {"policy":{"cpus":true}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"ports":[0]}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"ports":[70000]}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"ports":"80"}}
            => 400 invalid-request {field=policy.ports} policy.ports must be a JSON array
            {"policy":{"ports":[80,80]}}
            => 400 invalid-request {field=policy.ports[1]} policy.ports[1] repeats port 80
            {"policy":{"ports":[1.5]}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"ports":["80"]}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"ports":[null]}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"ports":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}}
            => 400 invalid-request {ceiling=16, field=policy.ports} policy.ports is above this server's ceiling of 16
            {"policy":{"ports":["x",2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}}
            => 400 invalid-request {ceiling=16, field=policy.ports} policy.ports is above this server's ceiling of 16
            {"policy":{"ports":[8080]}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[8080], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"ports":[80.0]}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"ports":[]}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"ports":[80],"network":"egress"}}
            => 400 invalid-request {field=policy.ports} policy.ports needs policy.network "bridge"
            {"policy":{"ports":[0],"network":"egress"}}
            => 400 invalid-request {field=policy.ports[0]} policy.ports[0] must be a port number 1-65535
            {"policy":{"egress":{"allow":["a.example"]}}}
            => 400 invalid-request {field=policy.egress} policy.egress is only allowed with policy.network "egress"
            {"policy":{"network":"bridge","egress":{}}}
            => 400 invalid-request {field=policy.egress} policy.egress is only allowed with policy.network "egress"
            {"policy":{"egress":5}}
            => 400 invalid-request {field=policy.egress} policy.egress is only allowed with policy.network "egress"
            {"policy":{"egress":null}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"network":"egress","egress":5}}
            => 400 invalid-request {field=policy.egress} policy.egress must be a JSON object
            {"policy":{"network":"egress","egress":null}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"network":"egress"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"network":"egress","egress":{"bogus":1}}}
            => 400 invalid-request {field=policy.egress.bogus} policy.egress.bogus is not a known field
            {"policy":{"network":"egress","egress":{"allow":5}}}
            => 400 invalid-request {field=policy.egress.allow} policy.egress.allow must be a JSON array
            {"policy":{"network":"egress","egress":{"deny":5}}}
            => 400 invalid-request {field=policy.egress.deny} policy.egress.deny must be a JSON array
            {"policy":{"network":"egress","egress":{"deny":5,"allow":[5]}}}
            => 400 invalid-request {field=policy.egress.deny} policy.egress.deny must be a JSON array
            {"policy":{"network":"egress","egress":{"allow":["a1.example","a2.example","a3.example","a4.example","a5.example","a6.example","a7.example","a8.example","a9.example"]}}}
            => 400 invalid-request {ceiling=8, field=policy.egress.allow} policy.egress.allow is above this server's ceiling of 8 entries in allow and deny together (agentbox.egress.max-rules)
            {"policy":{"network":"egress","egress":{"allow":["a1.example","a2.example","a3.example","a4.example","a5.example"],"deny":["d1.example","d2.example","d3.example","d4.example"]}}}
            => 400 invalid-request {ceiling=8, field=policy.egress.deny} policy.egress.deny is above this server's ceiling of 8 entries in allow and deny together (agentbox.egress.max-rules)
            {"policy":{"network":"egress","egress":{"allow":[5]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] must be a string
            {"policy":{"network":"egress","egress":{"allow":[null]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] must be a string
            {"policy":{"network":"egress","egress":{"allow":[""]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] must not be empty
            {"policy":{"network":"egress","egress":{"allow":["a.example","a.example"]}}}
            => 400 invalid-request {field=policy.egress.allow[1]} policy.egress.allow[1] repeats policy.egress.allow[0]
            {"policy":{"network":"egress","egress":{"allow":["A.example","a.example"]}}}
            => 400 invalid-request {field=policy.egress.allow[1]} policy.egress.allow[1] repeats policy.egress.allow[0]
            {"policy":{"network":"egress","egress":{"allow":["a.example"],"deny":["a.example"]}}}
            => 400 invalid-request {field=policy.egress.deny[0]} policy.egress.deny[0] is also policy.egress.allow[0] (an entry is either allowed or denied)
            {"policy":{"network":"egress","egress":{"allow":["a.example"],"deny":[5]}}}
            => 400 invalid-request {field=policy.egress.deny[0]} policy.egress.deny[0] must be a string
            {"policy":{"network":"egress","egress":{"allow":["1.2.3.4"]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] is an IP literal; IP literals are not allowed here (agentbox.egress.allow-ip-literals)
            {"policy":{"network":"egress","egress":{"allow":["http://x"]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] must be a host name, not a URL
            {"policy":{"network":"egress","egress":{"allow":["localhost"]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] names the loopback host (localhost)
            {"policy":{"network":"egress","egress":{"allow":["*.a.example:443"],"deny":["b.a.example"]}}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[EgressRule[kind=SUBDOMAINS, value=a.example, port=OptionalInt[443]]], deny=[EgressRule[kind=HOST, value=b.a.example, port=OptionalInt.empty]]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"policy":{"network":"host","memoryMb":"x"}}
            => 400 invalid-request {field=policy.network} policy.network must be "none", "bridge" or "egress"
            {"policy":{"memoryMb":1,"network":5}}
            => 400 invalid-request {field=policy.network} policy.network must be a string
            {"policy":{"memoryMb":99999,"pids":"x"}}
            => 400 invalid-request {ceiling=8192, field=policy.memoryMb} policy.memoryMb is above this server's ceiling of 8192
            {"policy":{"cpus":"x","ports":"y"}}
            => 400 invalid-request {field=policy.cpus} policy.cpus must be a number of at least 0.01
            {"policy":{"pids":"x","cpus":"y"}}
            => 400 invalid-request {field=policy.pids} policy.pids must be an integer
            {"policy":{"ports":"x","memoryMb":"y"}}
            => 400 invalid-request {field=policy.memoryMb} policy.memoryMb must be an integer
            {"policy":{"egress":{"allow":[5]},"memoryMb":1}}
            => 400 invalid-request {field=policy.egress} policy.egress is only allowed with policy.network "egress"
            {"policy":{"egress":{"allow":[5]},"network":"egress","memoryMb":1}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] must be a string
            {"policy":{"memoryMb":1,"network":"egress","egress":{"allow":[5]}}}
            => 400 invalid-request {field=policy.egress.allow[0]} policy.egress.allow[0] must be a string
            {"lifecycle":5}
            => 400 invalid-request {field=lifecycle} lifecycle must be a JSON object
            {"lifecycle":null}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"lifecycle":{}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"lifecycle":{"bogus":1}}
            => 400 invalid-request {field=lifecycle.bogus} lifecycle.bogus is not a known field
            {"lifecycle":{"reuse":"sometimes"}}
            => 400 invalid-request {field=lifecycle.reuse} lifecycle.reuse must be one of thread, definition or none
            {"lifecycle":{"reuse":5}}
            => 400 invalid-request {field=lifecycle.reuse} lifecycle.reuse must be a string
            {"lifecycle":{"reuse":""}}
            => 400 invalid-request {field=lifecycle.reuse} lifecycle.reuse must not be empty
            {"lifecycle":{"reuse":"THREAD","snapshot":"x"}}
            => 400 invalid-request {field=lifecycle.snapshot} lifecycle.snapshot must be one of none or after-setup
            {"lifecycle":{"snapshot":"after_setup"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=AFTER_SETUP, keepAliveMs=1800000]
            {"lifecycle":{"snapshot":"AFTER-SETUP"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=AFTER_SETUP, keepAliveMs=1800000]
            {"lifecycle":{"snapshot":"defınition"}}
            => 400 invalid-request {field=lifecycle.snapshot} lifecycle.snapshot must be one of none or after-setup
            {"lifecycle":{"reuse":"defınition"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"lifecycle":{"keepAliveMs":-1}}
            => 400 invalid-request {field=lifecycle.keepAliveMs} lifecycle.keepAliveMs must be an integer of at least 1000
            {"lifecycle":{"keepAliveMs":999}}
            => 400 invalid-request {field=lifecycle.keepAliveMs} lifecycle.keepAliveMs must be an integer of at least 1000
            {"lifecycle":{"keepAliveMs":1000}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1000]
            {"lifecycle":{"keepAliveMs":1e30}}
            => 400 invalid-request {field=lifecycle.keepAliveMs} lifecycle.keepAliveMs must be an integer
            {"lifecycle":{"keepAliveMs":86400001}}
            => 400 invalid-request {ceiling=86400000, field=lifecycle.keepAliveMs} lifecycle.keepAliveMs is above this server's ceiling of 86400000
            {"lifecycle":{"keepAliveMs":"x"}}
            => 400 invalid-request {field=lifecycle.keepAliveMs} lifecycle.keepAliveMs must be an integer
            {"lifecycle":{"keepAliveMs":1.5}}
            => 400 invalid-request {field=lifecycle.keepAliveMs} lifecycle.keepAliveMs must be an integer
            {"lifecycle":{"reuse":"thread"}}
            => 400 invalid-request {field=threadId} threadId is required when lifecycle.reuse is "thread"
            {"lifecycle":{"reuse":"none"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=NONE, snapshot=NONE, keepAliveMs=1800000]
            {"lifecycle":{"reuse":"x","snapshot":5}}
            => 400 invalid-request {field=lifecycle.reuse} lifecycle.reuse must be one of thread, definition or none
            {"lifecycle":{"keepAliveMs":"x","reuse":"y"}}
            => 400 invalid-request {field=lifecycle.reuse} lifecycle.reuse must be one of thread, definition or none
            {"lifecycle":{"reuse":"thread","keepAliveMs":5}}
            => 400 invalid-request {field=lifecycle.keepAliveMs} lifecycle.keepAliveMs must be an integer of at least 1000
            {"lifecycle":{"reuse":"x"},"policy":{"network":"y"}}
            => 400 invalid-request {field=policy.network} policy.network must be "none", "bridge" or "egress"
            {"lifecycle":5,"workspace":5}
            => 400 invalid-request {field=workspace} workspace must be a JSON object
            {"policy":5,"workspace":{"env":5}}
            => 400 invalid-request {field=workspace.env} workspace.env must be a JSON object
            {"threadId":"t","lifecycle":{"reuse":"definition"}}
            => ok default docker Optional.empty Optional[t] NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            {"threadId":"t","lifecycle":{}}
            => ok default docker Optional.empty Optional[t] NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=THREAD, snapshot=NONE, keepAliveMs=1800000]
            {"definitionId":"d","provider":"local","threadId":"t","workspace":{"source":{"type":"none"},"setup":["a"],"env":{"X":"1"}},"policy":{"network":"egress","memoryMb":512,"pids":100,"cpus":1.5,"egress":{"allow":["a.example","*.b.example:8443"],"deny":["c.b.example"]}},"lifecycle":{"reuse":"none","snapshot":"none","keepAliveMs":5000}}
            => ok d local Optional.empty Optional[t] NoSource[] [SetupStep[commands=[a], parallel=false]] env={X=1} secrets={} brokered={} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt[512], cpus=OptionalDouble[1.5], pids=OptionalInt[100], ports=[], egress=EgressPolicy[allow=[EgressRule[kind=HOST, value=a.example, port=OptionalInt.empty], EgressRule[kind=SUBDOMAINS, value=b.example, port=OptionalInt[8443]]], deny=[EgressRule[kind=HOST, value=c.b.example, port=OptionalInt.empty]]]] Lifecycle[reuse=NONE, snapshot=NONE, keepAliveMs=5000]
            B:{"policy":{"network":"bridge"}}
            => 400 invalid-request {field=policy.network} policy.network "bridge" is disabled on this server (agentbox.docker.bridge-enabled)
            B:{"policy":{"network":"egress"}}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=EGRESS, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=1800000]
            B:{"workspace":{"source":{"type":"local","path":"x"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type "local" is disabled on this server (agentbox.sources.local.enabled)
            B:{"workspace":{"source":{"type":"local","bogus":1}}}
            => 400 invalid-request {field=workspace.source.bogus} workspace.source.bogus is not a known field
            B:{"workspace":{"source":{"type":"local"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type "local" is disabled on this server (agentbox.sources.local.enabled)
            B:{"workspace":{"source":{"type":"local","path":5}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type "local" is disabled on this server (agentbox.sources.local.enabled)
            C:{"workspace":{"source":{"type":"local","path":"x"}}}
            => 400 invalid-request {field=workspace.source.type} workspace.source.type "local" is enabled but agentbox.sources.local.root is not set on this server
            C:{"workspace":{"source":{"type":"local","path":"a\\u0001"}}}
            => 400 invalid-request {field=workspace.source.path} workspace.source.path must not contain control characters
            C:{}
            => ok default docker Optional.empty Optional.empty NoSource[] [] env={} secrets={} brokered={} SandboxPolicy[network=NONE, memoryMb=OptionalInt.empty, cpus=OptionalDouble.empty, pids=OptionalInt.empty, ports=[], egress=EgressPolicy[allow=[], deny=[]]] Lifecycle[reuse=DEFINITION, snapshot=NONE, keepAliveMs=60000]
            """;

    @Test
    void everyBodyIsAnsweredAsPinned() {
        List<String[]> cases = PinnedAnswers.pairs(CASES);
        assertThat(cases).hasSizeGreaterThan(100);
        assertThat(PinnedAnswers.mismatches(cases, EnsureRefusalsTest::answer)).isEmpty();
    }

    /** What the parser answers to {@code body}, in the form {@link #CASES} pins. */
    static String answer(String body) {
        SandboxSpecParser parser = DEFAULT;
        if (body.startsWith("B:")) {
            parser = OFF;
            body = body.substring(2);
        } else if (body.startsWith("C:")) {
            parser = NO_ROOT;
            body = body.substring(2);
        }
        try {
            return "ok " + describe(parser.parse(PinnedAnswers.json(body)));
        } catch (ProblemException e) {
            return PinnedAnswers.refusal(e);
        }
    }

    private static final SandboxSpecParser DEFAULT =
            new SandboxSpecParser(
                    1_800_000,
                    new LocalSources(
                            true,
                            Optional.of(Path.of("/srv/src")),
                            LocalSources.DEFAULT_MAX_BYTES,
                            LocalSources.DEFAULT_MAX_FILES),
                    new EnsureRules(
                            ImageAllowlist.defaults(),
                            ResourceCeilings.defaults(),
                            true,
                            new EgressLimits(false, 8)));

    private static final SandboxSpecParser OFF =
            new SandboxSpecParser(
                    1_800_000,
                    LocalSources.disabled(),
                    new EnsureRules(ImageAllowlist.defaults(), ResourceCeilings.defaults(), false));

    private static final SandboxSpecParser NO_ROOT = new SandboxSpecParser(60_000, true);

    /** Every part of the spec, secret values and map entries included, in a stable order. */
    static String describe(SandboxSpec s) {
        Map<String, String> brokered = new TreeMap<>();
        for (Map.Entry<String, BrokeredSecret> b : s.workspace().brokered().entrySet()) {
            brokered.put(b.getKey(), b.getValue().value() + "@" + b.getValue().hosts());
        }
        return s.definitionId()
                + " "
                + s.provider()
                + " "
                + s.image()
                + " "
                + s.threadId()
                + " "
                + s.workspace().source()
                + " "
                + s.workspace().setup()
                + " env="
                + new TreeMap<>(s.workspace().env())
                + " secrets="
                + new TreeMap<>(s.workspace().secrets())
                + " brokered="
                + brokered
                + " "
                + s.policy()
                + " "
                + s.lifecycle();
    }
}
