package dev.agentbox.it;

import static dev.agentbox.it.BadInputCase.of;

import java.util.List;

/**
 * The bad-input corpus's rows for agent definitions, the AG-UI endpoint's {@code RunAgentInput}
 * (client tools, resume entries, tool messages, secrets) and interrupt answers. {@code {agent}} is
 * an agent of tenant A the corpus defines once; {@code {run}} its finished run. No row may start a
 * run: every input is refused before one is made.
 */
final class AgentBadInputs {

    private static final String A = "/api/v1/agents/{agent}";

    private AgentBadInputs() {}

    static void add(List<BadInputCase> c) {
        definitions(c);
        runAgentInput(c);
        clientTools(c);
        interrupts(c);
    }

    private static void definitions(List<BadInputCase> c) {
        c.add(of("agents: PUT malformed JSON", "PUT", A).json("{").expect(400, "invalid-request"));
        c.add(of("agents: PUT a JSON array", "PUT", A).json("[]").expect(400, "invalid-request"));
        c.add(
                of("agents: PUT an unknown harness", "PUT", "/api/v1/agents/corpus-x")
                        .json("{\"sandbox\":{},\"harness\":\"nope\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: PUT approvals not an array", "PUT", "/api/v1/agents/corpus-x")
                        .json(
                                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\","
                                        + "\"approvals\":{}}")
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: PUT an approval rule with an unknown decision", "PUT", A)
                        .json(
                                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\","
                                        + "\"approvals\":[{\"tool\":\"*\",\"decision\":\"maybe\"}]}")
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: PUT an HTTP tool named approve", "PUT", "/api/v1/agents/corpus-x")
                        .json(
                                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\","
                                        + "\"tools\":[{\"name\":\"approve\",\"description\":\"d\","
                                        + "\"parameters\":{\"type\":\"object\"},"
                                        + "\"url\":\"http://tools.example/x\"}]}")
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: PUT an HTTP tool with a file URL", "PUT", "/api/v1/agents/corpus-x")
                        .json(
                                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\","
                                        + "\"tools\":[{\"name\":\"t\",\"description\":\"d\","
                                        + "\"parameters\":{\"type\":\"object\"},"
                                        + "\"url\":\"file:///etc/passwd\"}]}")
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: PUT a webhook with an unknown event", "PUT", "/api/v1/agents/corpus-x")
                        .json(
                                "{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\","
                                        + "\"webhooks\":[{\"url\":\"https://hooks.example/x\","
                                        + "\"events\":[\"run.exploded\"]}]}")
                        .expect(400, "invalid-request"));
        c.add(
                of(
                                "agents: PUT a 300-character agent id",
                                "PUT",
                                "/api/v1/agents/" + "a".repeat(300))
                        .json("{\"sandbox\":{},\"harness\":\"command\",\"command\":\"true\"}")
                        .expect4xx());
        c.add(of("agents: GET an unknown agent", "GET", "/api/v1/agents/corpus-none").expect(404));
        c.add(of("agents: another tenant's agent", "GET", A).token(Api.TENANT_B).expect(404));
    }

    private static void runAgentInput(List<BadInputCase> c) {
        c.add(of("agents: POST malformed JSON", "POST", A).json("{\"messages\":").expect(400));
        c.add(of("agents: POST a JSON array", "POST", A).json("[]").expect(400, "invalid-request"));
        c.add(
                of("agents: POST without messages", "POST", A)
                        .json(input("", "", ""))
                        .expect(400, "invalid-request")
                        .field("messages"));
        c.add(
                of("agents: POST with no user message", "POST", A)
                        .json(
                                input(
                                        "{\"id\":\"m1\",\"role\":\"assistant\",\"content\":\"hi\"}",
                                        "",
                                        ""))
                        .expect(400, "invalid-request")
                        .field("messages"));
        c.add(
                of("agents: POST a message without a role", "POST", A)
                        .json(input("{\"id\":\"m1\",\"content\":\"hi\"}", "", ""))
                        .expect(400, "invalid-request")
                        .field("messages[0].role"));
        c.add(
                of("agents: POST a tool message without toolCallId", "POST", A)
                        .json(
                                input(
                                        "{\"id\":\"m0\",\"role\":\"tool\",\"content\":\"42\"},"
                                                + USER,
                                        "",
                                        ""))
                        .expect(400, "invalid-request")
                        .field("messages[0].toolCallId"));
        c.add(
                of("agents: POST resume not an array", "POST", A)
                        .json(input(USER, "", ",\"resume\":{}"))
                        .expect(400, "invalid-request")
                        .field("resume"));
        c.add(
                of("agents: POST a resume entry without interruptId", "POST", A)
                        .json(input(USER, "", ",\"resume\":[{\"status\":\"resolved\"}]"))
                        .expect(400, "invalid-request")
                        .field("resume[0].interruptId"));
        c.add(
                of("agents: POST a resume entry with status pending", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "",
                                        ",\"resume\":[{\"interruptId\":\"i\",\"status\":\"pending\"}]"))
                        .expect(400, "invalid-request")
                        .field("resume[0].status"));
        c.add(
                of("agents: POST 65 resume entries", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "",
                                        ",\"resume\":["
                                                + String.join(
                                                        ",",
                                                        java.util.Collections.nCopies(
                                                                65,
                                                                "{\"interruptId\":\"i\","
                                                                        + "\"status\":\"cancelled\"}"))
                                                + "]"))
                        .expect(400, "invalid-request")
                        .field("resume"));
        c.add(
                of("agents: POST a secret with a bad variable name", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "",
                                        ",\"forwardedProps\":{\"agentbox\":{\"secrets\":{\"1 BAD\":\""
                                                + BadInputCorpusIT.REQUEST_SECRET
                                                + "\"}}}"))
                        .expect(400, "invalid-request"));
    }

    private static void clientTools(List<BadInputCase> c) {
        c.add(
                of("agents: POST tools not an array", "POST", A)
                        .json(input(USER, "\"tools\":{},", ""))
                        .expect(400, "invalid-request")
                        .field("tools"));
        c.add(
                of("agents: POST 65 client tools", "POST", A)
                        .json(input(USER, "\"tools\":[" + tools(65) + "],", ""))
                        .expect(400, "invalid-request")
                        .field("tools"));
        c.add(
                of("agents: POST a client tool that is a string", "POST", A)
                        .json(input(USER, "\"tools\":[\"t\"],", ""))
                        .expect(400, "invalid-request")
                        .field("tools[0]"));
        c.add(
                of("agents: POST a client tool without a name", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "\"tools\":[{\"description\":\"d\","
                                                + "\"parameters\":{\"type\":\"object\"}}],",
                                        ""))
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: POST a client tool named approve", "POST", A)
                        .json(input(USER, "\"tools\":[" + tool("approve", "{}") + "],", ""))
                        .expect(400, "invalid-request")
                        .field("tools[0].name"));
        c.add(
                of("agents: POST two client tools of one name", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "\"tools\":["
                                                + tool("twice", "{}")
                                                + ","
                                                + tool("twice", "{}")
                                                + "],",
                                        ""))
                        .expect(400, "invalid-request")
                        .field("tools[1].name"));
        c.add(
                of("agents: POST a client tool with a name of spaces", "POST", A)
                        .json(input(USER, "\"tools\":[" + tool("no such name", "{}") + "],", ""))
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: POST a client tool whose parameters are a string", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "\"tools\":[{\"name\":\"t\",\"description\":\"d\","
                                                + "\"parameters\":\"object\"}],",
                                        ""))
                        .expect(400, "invalid-request"));
        c.add(
                of("agents: POST a client tool with a 40 KiB schema", "POST", A)
                        .json(
                                input(
                                        USER,
                                        "\"tools\":["
                                                + tool(
                                                        "big",
                                                        "{\"description\":\""
                                                                + "x".repeat(40 * 1024)
                                                                + "\"}")
                                                + "],",
                                        ""))
                        .expect(400, "invalid-request"));
    }

    private static void interrupts(List<BadInputCase> c) {
        String p = "/api/v1/runs/{run}/interrupts/no-such-interrupt";
        c.add(of("interrupts: malformed JSON", "POST", p).json("{").expect(400, "invalid-request"));
        c.add(
                of("interrupts: an unknown status", "POST", p)
                        .json("{\"status\":\"approved\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("interrupts: status pending", "POST", p)
                        .json("{\"status\":\"pending\"}")
                        .expect(400, "invalid-request"));
        c.add(
                of("interrupts: an unknown interrupt", "POST", p)
                        .json("{\"status\":\"cancelled\"}")
                        .expect(404));
        c.add(
                of("interrupts: another tenant's run", "POST", p)
                        .token(Api.TENANT_B)
                        .json("{\"status\":\"cancelled\"}")
                        .expect(404));
    }

    private static final String USER = "{\"id\":\"m1\",\"role\":\"user\",\"content\":\"hi\"}";

    /**
     * A {@code RunAgentInput} of a fresh thread: {@code messages} (none when empty), {@code extra}
     * members before them, {@code tail} members after them.
     */
    private static String input(String messages, String extra, String tail) {
        return "{\"threadId\":\"corpus-agent-thread\",\"runId\":\"corpus-agent-run\","
                + extra
                + (messages.isEmpty() ? "\"context\":[]" : "\"messages\":[" + messages + "]")
                + tail
                + "}";
    }

    private static String tool(String name, String parameters) {
        return "{\"name\":\""
                + name
                + "\",\"description\":\"d\",\"parameters\":"
                + parameters
                + "}";
    }

    private static String tools(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(tool("t" + i, "{}"));
        }
        return sb.toString();
    }
}
