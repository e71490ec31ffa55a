package dev.agentbox.tool;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A run's approval rules ({@code approvals}): ordered {@code {"tool": glob, "decision":
 * "allow|ask|deny"}}; the first rule whose glob matches the tool's whole name decides, and a tool
 * no rule matches is allowed.
 *
 * <p>Globs: {@code *} is any run of characters (also none), {@code ?} exactly one, everything else
 * itself (case-sensitive). Invariants: at most {@value #MAX_RULES} rules, each glob 1..{@value
 * #MAX_GLOB} printable characters; the stored form ({@link #toJson}) parses back to equal rules, so
 * a server that takes a run over applies exactly the rules the run was started with.
 */
public record ApprovalRules(List<Rule> rules) {

    public static final int MAX_RULES = 100;
    public static final int MAX_GLOB = 200;

    /** No rules: every call is allowed. */
    public static final ApprovalRules NONE = new ApprovalRules(List.of());

    public ApprovalRules {
        rules = List.copyOf(rules);
    }

    /** What a rule decides for the calls it matches. */
    public enum Decision {
        ALLOW,
        ASK,
        DENY;

        public String wireName() {
            return name().toLowerCase();
        }

        static Optional<Decision> of(String wire) {
            for (Decision d : values()) {
                if (d.wireName().equals(wire)) {
                    return Optional.of(d);
                }
            }
            return Optional.empty();
        }
    }

    /** One rule: the glob over tool names and its decision. */
    public record Rule(String tool, Decision decision) {

        boolean matches(String toolName) {
            return glob(tool).matcher(toolName).matches();
        }

        private static Pattern glob(String glob) {
            StringBuilder re = new StringBuilder();
            StringBuilder literal = new StringBuilder();
            for (char c : glob.toCharArray()) {
                if (c == '*' || c == '?') {
                    if (!literal.isEmpty()) {
                        re.append(Pattern.quote(literal.toString()));
                        literal.setLength(0);
                    }
                    re.append(c == '*' ? ".*" : ".");
                } else {
                    literal.append(c);
                }
            }
            if (!literal.isEmpty()) {
                re.append(Pattern.quote(literal.toString()));
            }
            return Pattern.compile(re.toString(), Pattern.DOTALL);
        }
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** The decision for a call of {@code toolName}: the first matching rule's, else allow. */
    public Decision decide(String toolName) {
        for (Rule r : rules) {
            if (r.matches(toolName)) {
                return r.decision();
            }
        }
        return Decision.ALLOW;
    }

    /** The stored (and request) form: {@code [{"tool","decision"}, …]}. */
    public JsonArray toJson() {
        JsonArrayBuilder a = Json.createArrayBuilder();
        for (Rule r : rules) {
            a.add(
                    Json.createObjectBuilder()
                            .add("tool", r.tool())
                            .add("decision", r.decision().wireName()));
        }
        return a.build();
    }

    /** Reads the stored form back (it was validated when stored). */
    public static ApprovalRules fromJson(JsonArray stored) {
        return parse(stored, "approvals");
    }

    /**
     * Validates {@code approvals} of a request; {@code null} or JSON null is no rules. A bad value
     * is a {@code 400 invalid-request} naming the exact field ({@code approvals[2].decision}).
     */
    public static ApprovalRules parse(JsonValue value, String field) {
        if (value == null || value == JsonValue.NULL) {
            return NONE;
        }
        if (!(value instanceof JsonArray array)) {
            throw invalid(field, "must be an array of {\"tool\",\"decision\"} rules");
        }
        if (array.size() > MAX_RULES) {
            throw invalid(field, "must hold at most " + MAX_RULES + " rules");
        }
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            String at = field + "[" + i + "]";
            if (!(array.get(i) instanceof JsonObject o)) {
                throw invalid(at, "must be an object {\"tool\",\"decision\"}");
            }
            for (String k : o.keySet()) {
                if (!k.equals("tool") && !k.equals("decision")) {
                    throw invalid(at + "." + k, "is not a known field");
                }
            }
            if (!(o.get("tool") instanceof JsonString t) || t.getString().isEmpty()) {
                throw invalid(at + ".tool", "must be a non-empty glob over tool names");
            }
            String tool = t.getString();
            if (tool.length() > MAX_GLOB) {
                throw invalid(at + ".tool", "must be at most " + MAX_GLOB + " characters");
            }
            if (tool.chars().anyMatch(Character::isISOControl)) {
                throw invalid(at + ".tool", "must be printable (no control characters)");
            }
            Decision decision =
                    o.get("decision") instanceof JsonString d
                            ? Decision.of(d.getString()).orElse(null)
                            : null;
            if (decision == null) {
                throw invalid(at + ".decision", "must be allow, ask or deny");
            }
            rules.add(new Rule(tool, decision));
        }
        return new ApprovalRules(rules);
    }

    private static ProblemException invalid(String field, String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, field + " " + problem, Map.of("field", field), null);
    }
}
