package dev.agentbox.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentbox.problem.ProblemException;
import dev.agentbox.testing.PinnedAnswers;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * AG-UI {@code RunAgentInput}'s answers, pinned byte for byte: for each body the exact problem
 * (status, code, {@code field}, detail) or everything read from it. Bodies with several faults pin
 * which one is named first.
 */
class RunAgentInputRefusalsTest {

    /**
     * One case per two lines: the body, then {@code =>} and the answer. {@code {{REP:s:n}}} stands
     * for {@code s} repeated {@code n} times, {@code {{REPJ:s:n}}} for {@code n} copies of the JSON
     * value {@code s} separated by commas; control characters in answers are shown as {@code
     * <U+XXXX>}.
     */
    static final String CASES =
            """
            []
            => 400 invalid-request {field=body} body must be a JSON object (an AG-UI RunAgentInput)
            "x"
            => 400 invalid-request {field=body} body must be a JSON object (an AG-UI RunAgentInput)
            null
            => 400 invalid-request {field=body} body must be a JSON object (an AG-UI RunAgentInput)
            5
            => 400 invalid-request {field=body} body must be a JSON object (an AG-UI RunAgentInput)
            {}
            => 400 invalid-request {field=threadId} threadId is required: a non-empty string
            {"runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId is required: a non-empty string
            {"threadId":5,"runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId is required: a non-empty string
            {"threadId":"","runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId is required: a non-empty string
            {"threadId":null,"runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId is required: a non-empty string
            {"threadId":"{{REP:t:201}}","runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId must be at most 200 characters
            {"threadId":"{{REP:t:200}}","runId":"r","messages":[{"role":"user","content":"hi"}]}
            => ok tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"a\\nb","runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId must be printable (no control characters) at index 1
            {"threadId":"a\\u0000b","runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId must be printable (no control characters) at index 1
            {"threadId":"a\\ud800","runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId must be printable (no control characters) at index 1
            {"threadId":"\\u0001{{REP:t:201}}","runId":"r","messages":[]}
            => 400 invalid-request {field=threadId} threadId must be at most 200 characters
            {"threadId":" ","runId":"r","messages":[{"role":"user","content":"hi"}]}
            => ok   r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","messages":[]}
            => 400 invalid-request {field=runId} runId is required: a non-empty string
            {"threadId":"t","runId":5,"messages":[]}
            => 400 invalid-request {field=runId} runId is required: a non-empty string
            {"threadId":"t","runId":"","messages":[]}
            => 400 invalid-request {field=runId} runId is required: a non-empty string
            {"threadId":"t","runId":"a\\u2028b","messages":[]}
            => 400 invalid-request {field=runId} runId must be printable (no control characters) at index 1
            {"threadId":"t","runId":"{{REP:r:300}}","messages":[]}
            => 400 invalid-request {field=runId} runId must be at most 200 characters
            {"runId":5,"threadId":5}
            => 400 invalid-request {field=threadId} threadId is required: a non-empty string
            {"messages":5,"runId":"","threadId":"t"}
            => 400 invalid-request {field=runId} runId is required: a non-empty string
            {"threadId":"t","runId":"r"}
            => 400 invalid-request {field=messages} messages is required: an array of AG-UI messages
            {"threadId":"t","runId":"r","messages":null}
            => 400 invalid-request {field=messages} messages is required: an array of AG-UI messages
            {"threadId":"t","runId":"r","messages":{}}
            => 400 invalid-request {field=messages} messages is required: an array of AG-UI messages
            {"threadId":"t","runId":"r","messages":"hi"}
            => 400 invalid-request {field=messages} messages is required: an array of AG-UI messages
            {"threadId":"t","runId":"r","messages":[]}
            => 400 invalid-request {field=messages} messages must hold a message with role "user" (the prompt)
            {"threadId":"t","runId":"r","messages":[5]}
            => 400 invalid-request {field=messages[0]} messages[0] must be an object
            {"threadId":"t","runId":"r","messages":[null]}
            => 400 invalid-request {field=messages[0]} messages[0] must be an object
            {"threadId":"t","runId":"r","messages":[[]]}
            => 400 invalid-request {field=messages[0]} messages[0] must be an object
            {"threadId":"t","runId":"r","messages":[{}]}
            => 400 invalid-request {field=messages[0].role} messages[0].role is required: a string (user, assistant, …)
            {"threadId":"t","runId":"r","messages":[{"role":5}]}
            => 400 invalid-request {field=messages[0].role} messages[0].role is required: a string (user, assistant, …)
            {"threadId":"t","runId":"r","messages":[{"role":""}]}
            => 400 invalid-request {field=messages[0].role} messages[0].role is required: a string (user, assistant, …)
            {"threadId":"t","runId":"r","messages":[{"role":null}]}
            => 400 invalid-request {field=messages[0].role} messages[0].role is required: a string (user, assistant, …)
            {"threadId":"t","runId":"r","messages":[{"role":"user"}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":""}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":null}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":5}]}
            => 400 invalid-request {field=messages[0].id} messages[0].id must be a string of at most 255 characters
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":null}]}
            => 400 invalid-request {field=messages[0].id} messages[0].id must be a string of at most 255 characters
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":""}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":"{{REP:i:255}}"}]}
            => ok t r iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":"{{REP:i:256}}"}]}
            => 400 invalid-request {field=messages[0].id} messages[0].id must be a string of at most 255 characters
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":"a\\u0001"}]}
            => ok t r a<U+0001> prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","id":"m1"}]}
            => ok t r m1 prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"id":5,"role":5}]}
            => 400 invalid-request {field=messages[0].role} messages[0].role is required: a string (user, assistant, …)
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":5}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content must be a string or an array of parts
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":true}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content must be a string or an array of parts
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":{}}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content must be a string or an array of parts
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[]}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[5]}]}
            => 400 invalid-request {field=messages[0].content[0]} messages[0].content[0] must be an object
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[null]}]}
            => 400 invalid-request {field=messages[0].content[0]} messages[0].content[0] must be an object
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{}]}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":"text"}]}]}
            => 400 invalid-request {field=messages[0].content[0].text} messages[0].content[0].text must be a string
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":"text","text":5}]}]}
            => 400 invalid-request {field=messages[0].content[0].text} messages[0].content[0].text must be a string
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":"text","text":null}]}]}
            => 400 invalid-request {field=messages[0].content[0].text} messages[0].content[0].text must be a string
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","url":"x"},{"type":"text","text":"b"}]}]}
            => ok t r r-user prompt=a<U+000A>b earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":"image"}]}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":[{"type":5,"text":5}]}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi","bogus":1,"name":"x"}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"assistant","content":"a"}]}
            => 400 invalid-request {field=messages} messages must hold a message with role "user" (the prompt)
            {"threadId":"t","runId":"r","messages":[{"role":"system","content":"s"},{"role":"user","content":"u1"},{"role":"assistant","content":"a1"},{"role":"tool","toolCallId":"c1","content":"res"},{"role":"user","content":""},{"role":"assistant","content":""},{"role":"user","content":"u2","id":"m9"}]}
            => ok t r m9 prompt=u2 earlier=[Message[role=user, text=u1], Message[role=assistant, text=a1]] secrets={} set=Optional.empty tools=[] resume=[] results={c1=res}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},{"role":"assistant","content":"a1"}]}
            => ok t r r-user prompt=u1 earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},{"role":"user","content":""}]}
            => 400 invalid-request {field=messages[1].content} messages[1].content has no text
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},5]}
            => 400 invalid-request {field=messages[1]} messages[1] must be an object
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},{"role":"tool","content":"x"}]}
            => 400 invalid-request {field=messages[1].toolCallId} messages[1].toolCallId is required on a tool message
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},{"role":"tool","toolCallId":"","content":"x"}]}
            => 400 invalid-request {field=messages[1].toolCallId} messages[1].toolCallId is required on a tool message
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},{"role":"tool","toolCallId":5,"content":"x"}]}
            => 400 invalid-request {field=messages[1].toolCallId} messages[1].toolCallId is required on a tool message
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"u1"},{"role":"tool","toolCallId":"c","content":5}]}
            => 400 invalid-request {field=messages[1].content} messages[1].content must be a string or an array of parts
            {"threadId":"t","runId":"r","messages":[{"role":"tool","toolCallId":"c","content":"x"},{"role":"user","content":"u1"}]}
            => ok t r r-user prompt=u1 earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={c=x}
            {"threadId":"t","runId":"r","messages":[{"role":"tool","toolCallId":"c","content":"x"},{"role":"tool","toolCallId":"c","content":"y"},{"role":"user","content":"u1"}]}
            => ok t r r-user prompt=u1 earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={c=y}
            {"threadId":"t","runId":"r","messages":[{"role":"tool","content":5},{"role":"user","content":"u1"}]}
            => 400 invalid-request {field=messages[0].content} messages[0].content must be a string or an array of parts
            {"threadId":"t","runId":"r","messages":[{"role":"tool"},{"role":"user","content":"u1"}],"tools":5}
            => 400 invalid-request {field=tools} tools must be an array of AG-UI tools
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":5}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":null}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":5}}
            => 400 invalid-request {field=forwardedProps.agentbox} forwardedProps.agentbox must be an object
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":null}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{}}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":5}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets} forwardedProps.agentbox.secrets must be an object of names to strings or {value, brokerHosts}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":null}}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":[]}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets} forwardedProps.agentbox.secrets must be an object of names to strings or {value, brokerHosts}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"1x":"v"}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets} forwardedProps.agentbox.secrets has an invalid variable name "1x"
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":5}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K} forwardedProps.agentbox.secrets.K must be a string or {"value","brokerHosts"}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":null}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K} forwardedProps.agentbox.secrets.K must be a string or {"value","brokerHosts"}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":"a\\u0000"}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K} forwardedProps.agentbox.secrets.K must not contain NUL
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":"v","L":""}}}}
            => ok t r r-user prompt=hi earlier=[] secrets={K=v, L=} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":"v","ANTHROPIC_API_KEY":{"value":"sk-1","brokerHosts":["API.Anthropic.com"]}}}}}
            => ok t r r-user prompt=hi earlier=[] secrets={K=v} brokered={ANTHROPIC_API_KEY=BrokeredSecret[hosts=[api.anthropic.com]]} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":{"value":"sk-1"}}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K.brokerHosts} forwardedProps.agentbox.secrets.K.brokerHosts must name at least one host
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":{"value":"sk-1","brokerHosts":["*.anthropic.com"]}}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K.brokerHosts[0]} forwardedProps.agentbox.secrets.K.brokerHosts[0] must be one exact host name, without a port or *.
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":{"value":"sk-1","brokerHosts":["a.test"],"extra":1}}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K.extra} forwardedProps.agentbox.secrets.K.extra is not a known field
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":{"value":"a\\r\\nb","brokerHosts":["a.test"]}}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K.value} forwardedProps.agentbox.secrets.K.value must be a non-empty header value (no NUL, CR or LF)
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":5,"1x":"v"}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets.K} forwardedProps.agentbox.secrets.K must be a string or {"value","brokerHosts"}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"1x":5,"K":"v"}}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets} forwardedProps.agentbox.secrets has an invalid variable name "1x"
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":5}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secretSet} forwardedProps.agentbox.secretSet must be the name of a secret set
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":""}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secretSet} forwardedProps.agentbox.secretSet must be the name of a secret set
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":null}}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":"prod"}}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional[prod] tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":" "}}}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional[ ] tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":5,"secrets":5}}}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets} forwardedProps.agentbox.secrets must be an object of names to strings or {value, brokerHosts}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":5,"bogus":1},"other":2}}
            => 400 invalid-request {field=forwardedProps.agentbox.secretSet} forwardedProps.agentbox.secretSet must be the name of a secret set
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secretSet":5}},"tools":5}
            => 400 invalid-request {field=forwardedProps.agentbox.secretSet} forwardedProps.agentbox.secretSet must be the name of a secret set
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":5}
            => 400 invalid-request {field=tools} tools must be an array of AG-UI tools
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":null}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":{}}
            => 400 invalid-request {field=tools} tools must be an array of AG-UI tools
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[5]}
            => 400 invalid-request {field=tools[0]} tools[0] must be an object {name, description, parameters}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[null]}
            => 400 invalid-request {field=tools[0]} tools[0] must be an object {name, description, parameters}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{}]}
            => 400 invalid-request {field=tools[0]} tools[0] name is required: a string
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":5}]}
            => 400 invalid-request {field=tools[0]} tools[0] name is required: a string
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t1","parameters":5}]}
            => 400 invalid-request {field=tools[0]} tools[0] parameters must be a JSON Schema object
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t1","parameters":null}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[ClientTool[name=t1, description=, parameters={"type":"object"}]] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t1","description":"d","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[ClientTool[name=t1, description=d, parameters={"type":"object","properties":{"a":{"type":"string"}}}]] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t1","description":5}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[ClientTool[name=t1, description=, parameters={"type":"object"}]] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":""}]}
            => 400 invalid-request {field=tools[0]} tools[0] tool name must be 1-64 letters, digits, '_' or '-':\s
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a b"}]}
            => 400 invalid-request {field=tools[0]} tools[0] tool name must be 1-64 letters, digits, '_' or '-': a b
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"{{REP:n:100}}"}]}
            => 400 invalid-request {field=tools[0]} tools[0] tool name must be 1-64 letters, digits, '_' or '-': nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"approve"}]}
            => 400 invalid-request {field=tools[0].name} tools[0].name is reserved or named twice: approve
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t1"},{"name":"t1"}]}
            => 400 invalid-request {field=tools[1].name} tools[1].name is reserved or named twice: t1
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{{REPJ:{"name":"t"}:65}}]}
            => 400 invalid-request {field=tools} tools has more than 64 tools
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[5,{{REPJ:{"name":"t"}:65}}]}
            => 400 invalid-request {field=tools} tools has more than 64 tools
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t1","parameters":[]}]}
            => 400 invalid-request {field=tools[0]} tools[0] parameters must be a JSON Schema object
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":5}
            => 400 invalid-request {field=resume} resume must be an array of {interruptId, status, payload?}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":null}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":{}}
            => 400 invalid-request {field=resume} resume must be an array of {interruptId, status, payload?}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[5]}
            => 400 invalid-request {field=resume[0]} resume[0] must be an object {interruptId, status, payload?}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[null]}
            => 400 invalid-request {field=resume[0]} resume[0] must be an object {interruptId, status, payload?}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{}]}
            => 400 invalid-request {field=resume[0].interruptId} resume[0].interruptId is required: an interrupt's id
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":5}]}
            => 400 invalid-request {field=resume[0].interruptId} resume[0].interruptId is required: an interrupt's id
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":""}]}
            => 400 invalid-request {field=resume[0].interruptId} resume[0].interruptId is required: an interrupt's id
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"{{REP:i:256}}","status":"resolved"}]}
            => 400 invalid-request {field=resume[0].interruptId} resume[0].interruptId is required: an interrupt's id
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"{{REP:i:255}}","status":"resolved"}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[Resume[interruptId=iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii, status=RESOLVED, payload=null]] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1"}]}
            => 400 invalid-request {field=resume[0].status} resume[0].status must be resolved or cancelled
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":5}]}
            => 400 invalid-request {field=resume[0].status} resume[0].status must be resolved or cancelled
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"pending"}]}
            => 400 invalid-request {field=resume[0].status} resume[0].status must be resolved or cancelled
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"expired"}]}
            => 400 invalid-request {field=resume[0].status} resume[0].status must be resolved or cancelled
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"RESOLVED"}]}
            => 400 invalid-request {field=resume[0].status} resume[0].status must be resolved or cancelled
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"resolved"}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[Resume[interruptId=i1, status=RESOLVED, payload=null]] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"cancelled","payload":{"a":[1,null]}}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[Resume[interruptId=i1, status=CANCELLED, payload={"a":[1,null]}]] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"resolved","payload":null}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[Resume[interruptId=i1, status=RESOLVED, payload=null]] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"interruptId":"i1","status":"resolved","extra":1},{"interruptId":"i1","status":"resolved"}]}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[Resume[interruptId=i1, status=RESOLVED, payload=null], Resume[interruptId=i1, status=RESOLVED, payload=null]] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{{REPJ:{"interruptId":"i","status":"resolved"}:65}}]}
            => 400 invalid-request {field=resume} resume has more than 64 entries
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":[{"status":5,"interruptId":5}]}
            => 400 invalid-request {field=resume[0].interruptId} resume[0].interruptId is required: an interrupt's id
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"resume":5,"tools":5}
            => 400 invalid-request {field=tools} tools must be an array of AG-UI tools
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"},{"role":"tool"}],"resume":5}
            => 400 invalid-request {field=resume} resume must be an array of {interruptId, status, payload?}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"},{"role":"tool"}],"resume":[{"interruptId":"i1","status":"resolved"}]}
            => 400 invalid-request {field=messages[1].toolCallId} messages[1].toolCallId is required on a tool message
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"context":[5],"state":"x","parentRunId":7}
            => ok t r r-user prompt=hi earlier=[] secrets={} set=Optional.empty tools=[] resume=[] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"B":"2","A":"1"},"secretSet":"s1"}},"tools":[{"name":"t2","description":"d"},{"name":"t1"}],"resume":[{"interruptId":"i1","status":"resolved","payload":"yes"}]}
            => ok t r r-user prompt=hi earlier=[] secrets={A=1, B=2} set=Optional[s1] tools=[ClientTool[name=t2, description=d, parameters={"type":"object"}], ClientTool[name=t1, description=, parameters={"type":"object"}]] resume=[Resume[interruptId=i1, status=RESOLVED, payload="yes"]] results={}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":5}},"tools":5}
            => 400 invalid-request {field=forwardedProps.agentbox.secrets} forwardedProps.agentbox.secrets must be an object of names to strings or {value, brokerHosts}
            {"threadId":"t","runId":"r","messages":[{"role":"user","content":"hi"}],"forwardedProps":{"agentbox":{"secrets":{"K":"v"},"secretSet":""}},"tools":5}
            => 400 invalid-request {field=forwardedProps.agentbox.secretSet} forwardedProps.agentbox.secretSet must be the name of a secret set
            """;

    @Test
    void everyBodyIsAnsweredAsPinned() {
        List<String[]> cases = PinnedAnswers.pairs(CASES);
        assertThat(cases).hasSizeGreaterThan(100);
        assertThat(PinnedAnswers.mismatches(cases, RunAgentInputRefusalsTest::answer)).isEmpty();
    }

    /**
     * What {@link RunAgentInput#parse} answers to {@code body}, in the form {@link #CASES} pins.
     */
    static String answer(String body) {
        try {
            RunAgentInput in = RunAgentInput.parse(PinnedAnswers.json(body));
            return PinnedAnswers.show(
                    "ok "
                            + in.threadId()
                            + " "
                            + in.runId()
                            + " "
                            + in.userMessageId()
                            + " prompt="
                            + in.prompt()
                            + " earlier="
                            + in.earlier()
                            + " secrets="
                            + new TreeMap<>(in.secrets().plain())
                            + (in.secrets().brokered().isEmpty()
                                    ? ""
                                    : " brokered=" + new TreeMap<>(in.secrets().brokered()))
                            + " set="
                            + in.secretSet()
                            + " tools="
                            + in.tools()
                            + " resume="
                            + in.resume()
                            + " results="
                            + new TreeMap<>(in.toolResults()));
        } catch (ProblemException e) {
            return PinnedAnswers.refusal(e);
        }
    }
}
