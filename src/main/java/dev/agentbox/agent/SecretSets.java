package dev.agentbox.agent;

import dev.agentbox.problem.ProblemCode;
import dev.agentbox.problem.ProblemException;
import dev.agentbox.sandbox.GivenSecrets;
import dev.agentbox.sandbox.SecretEntries;
import dev.agentbox.sandbox.spi.BrokeredSecret;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * Named secret sets of a tenant, kept by the operator on the server's host rather than sent by the
 * client: a browser chat client cannot hold a model key, and an agent definition must not (it is
 * stored). A run names one with {@code forwardedProps.agentbox.secretSet}; its variables become the
 * run's secrets exactly as {@code forwardedProps.agentbox.secrets} would (those win on a clash),
 * read when the run starts and never stored.
 *
 * <p>Layout: {@code <agentbox.secret-sets.dir>/<tenant>/<set>/<NAME>}, one file per variable, its
 * content the value — the shape of a mounted Kubernetes secret, whose key files are symlinks into a
 * hidden {@code ..data} directory; names starting with a dot are skipped. A variable is brokered
 * (docs/api.md, "Brokered secrets on every path") when a file {@code <NAME>.broker-hosts} lies
 * beside it: one host per line (blank lines skipped), each an exact host name as {@code
 * brokerHosts} takes them, at least one, at most {@value SecretEntries#MAX_HOSTS}; that file is no
 * variable, and one beside no variable is refused.
 *
 * <p>Invariants: a tenant reads only under its own directory — the set name is one safe path
 * segment, and every file's real path (after links) must stay inside the set's real directory, so a
 * link cannot lead to another tenant's set or anywhere else on the host; at most {@value
 * #MAX_VARIABLES} variables of at most {@value #MAX_VALUE_BYTES} bytes each, UTF-8 without NUL. A
 * refusal is {@code 400 invalid-request} with {@code field: forwardedProps.agentbox.secretSet}; its
 * detail never names a host path or a value.
 */
public final class SecretSets {

    public static final String DIR = "agentbox.secret-sets.dir";
    static final String FIELD = "forwardedProps.agentbox.secretSet";
    static final int MAX_VARIABLES = 100;
    static final int MAX_VALUE_BYTES = 64 * 1024;

    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private final Optional<Path> root;

    public SecretSets(Optional<Path> root) {
        this.root = root.map(r -> r.toAbsolutePath().normalize());
    }

    public static SecretSets fromConfig(Config c) {
        return new SecretSets(
                c.getOptionalValue(DIR, String.class)
                        .map(String::strip)
                        .filter(s -> !s.isEmpty())
                        .map(Path::of));
    }

    /** What marks a file as the broker hosts of the variable its name starts with. */
    static final String BROKER_HOSTS = ".broker-hosts";

    /** The variables of the tenant's set {@code name}, plain or brokered. */
    public GivenSecrets read(String tenant, String name) {
        if (!SEGMENT.matcher(name).matches()) {
            throw refused(
                    "must be 1-128 characters of letters, digits, '.', '_' or '-', not starting"
                            + " with '.'");
        }
        if (root.isEmpty()) {
            throw refused("names a secret set, but this server keeps none (" + DIR + ")");
        }
        if (!SEGMENT.matcher(tenant).matches()) {
            throw refused("names a secret set, but this tenant's name cannot hold any");
        }
        Path tenantDir = root.get().resolve(tenant);
        Path set = tenantDir.resolve(name);
        Path real;
        try {
            real = set.toRealPath();
            // Under the tenant's own directory after links: a set linked to another tenant's
            // (or anywhere else) is no set of this tenant.
            if (!real.startsWith(tenantDir.toRealPath()) || !Files.isDirectory(real)) {
                throw unknown(name);
            }
        } catch (IOException e) {
            throw unknown(name);
        }
        Map<String, String> variables = new TreeMap<>();
        Map<String, List<String>> hosts = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(real)) {
            for (Path entry : entries) {
                String variable = entry.getFileName().toString();
                if (variable.startsWith(".")) {
                    continue;
                }
                if (variable.endsWith(BROKER_HOSTS)
                        && ENV_NAME.matcher(
                                        variable.substring(
                                                0, variable.length() - BROKER_HOSTS.length()))
                                .matches()) {
                    hosts.put(
                            variable.substring(0, variable.length() - BROKER_HOSTS.length()),
                            hosts(value(real, entry, name), variable, name));
                    if (hosts.size() > MAX_VARIABLES) {
                        throw refused(
                                "secret set "
                                        + name
                                        + " holds more than "
                                        + MAX_VARIABLES
                                        + " variables");
                    }
                    continue;
                }
                if (!ENV_NAME.matcher(variable).matches()) {
                    throw refused(
                            "secret set " + name + " holds an entry that is not a variable name");
                }
                variables.put(variable, value(real, entry, name));
                if (variables.size() > MAX_VARIABLES) {
                    throw refused(
                            "secret set "
                                    + name
                                    + " holds more than "
                                    + MAX_VARIABLES
                                    + " variables");
                }
            }
        } catch (IOException e) {
            throw unknown(name);
        }
        Map<String, BrokeredSecret> brokered = new TreeMap<>();
        hosts.forEach(
                (variable, list) -> {
                    String value = variables.remove(variable);
                    if (value == null) {
                        throw refused(
                                "secret set "
                                        + name
                                        + ": "
                                        + variable
                                        + BROKER_HOSTS
                                        + " lies beside no variable "
                                        + variable);
                    }
                    brokered.put(variable, new BrokeredSecret(value, list));
                });
        return new GivenSecrets(variables, brokered);
    }

    /** The hosts of a {@code .broker-hosts} file: one a line, blank lines skipped. */
    private static List<String> hosts(String text, String file, String name) {
        List<String> hosts = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String host;
            try {
                host = SecretEntries.host(line, FIELD);
            } catch (ProblemException e) {
                throw refused(
                        "secret set "
                                + name
                                + ": "
                                + file
                                + " line "
                                + (i + 1)
                                + " is not one exact host name (no port, no *., no IP address)");
            }
            if (hosts.contains(host)) {
                throw refused(
                        "secret set "
                                + name
                                + ": "
                                + file
                                + " line "
                                + (i + 1)
                                + " repeats a host");
            }
            hosts.add(host);
        }
        if (hosts.isEmpty() || hosts.size() > SecretEntries.MAX_HOSTS) {
            throw refused(
                    "secret set "
                            + name
                            + ": "
                            + file
                            + " must name 1 to "
                            + SecretEntries.MAX_HOSTS
                            + " hosts");
        }
        return List.copyOf(hosts);
    }

    private static String value(Path realSet, Path entry, String name) throws IOException {
        Path real = entry.toRealPath();
        // A link may lead into the set's hidden ..data directory, never out of the set.
        if (!real.startsWith(realSet) || !Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            throw refused(
                    "secret set "
                            + name
                            + ": "
                            + entry.getFileName()
                            + " is not a file of the set");
        }
        if (Files.size(real) > MAX_VALUE_BYTES) {
            throw refused(
                    "secret set "
                            + name
                            + ": "
                            + entry.getFileName()
                            + " is larger than "
                            + MAX_VALUE_BYTES
                            + " bytes");
        }
        byte[] bytes = Files.readAllBytes(real);
        String text;
        try {
            text =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(java.nio.ByteBuffer.wrap(bytes))
                            .toString();
        } catch (CharacterCodingException e) {
            text = null;
        }
        if (text == null || text.indexOf('\0') >= 0) {
            throw refused(
                    "secret set "
                            + name
                            + ": "
                            + entry.getFileName()
                            + " is not UTF-8 text without NUL");
        }
        return text;
    }

    private static ProblemException unknown(String name) {
        return refused("names no secret set of this tenant: " + name);
    }

    private static ProblemException refused(String problem) {
        return new ProblemException(
                ProblemCode.INVALID_REQUEST, FIELD + " " + problem, Map.of("field", FIELD), null);
    }
}
