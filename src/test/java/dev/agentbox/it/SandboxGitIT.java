package dev.agentbox.it;

import static dev.agentbox.it.ProblemAssert.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Git with credentials over the API: a sandbox clones, pulls and pushes with its {@code GIT_TOKEN}
 * secret, and the token stays out of every answer, the clone's {@code .git/config}, the server's
 * files and a snapshot.
 *
 * <p>The git server is one the test starts: git's smart HTTP protocol ({@code git http-backend}
 * under busybox {@code httpd}, Basic authentication) in a container the sandbox reaches the way it
 * reaches the outside world ({@link OutsideHost}), never an outside host.
 */
class SandboxGitIT {

    private static final String USER = "bot";
    private static final String TOKEN = "gtk-" + UUID.randomUUID();
    private static OutsideHost server;

    private final Api api = Api.itServer();
    private final Sandboxes tenantA = new Sandboxes(api, Api.TENANT_A);
    private final List<String> answers = new ArrayList<>();

    /** The server's setup: the CGI wrapper, the credentials, and a start script it waits for. */
    private static final String SETUP =
            """
            set -e
            mkdir -p /srv/www/cgi-bin /srv/git
            cat > /srv/www/cgi-bin/git <<'X'
            #!/bin/sh
            export GIT_PROJECT_ROOT=/srv/git GIT_HTTP_EXPORT_ALL=1
            exec git -c http.receivepack=true http-backend
            X
            chmod +x /srv/www/cgi-bin/git
            printf '/cgi-bin:%s:%s\\n' "$GIT_USER" "$GIT_PASS" > /srv/httpd.conf
            printf '#!/bin/sh\\nexec /srv/busybox httpd -f -vv -p 8080 -h /srv/www -c /srv/httpd.conf\\n' > /srv/start.tmp
            chmod +x /srv/start.tmp && mv /srv/start.tmp /srv/start
            """;

    @BeforeAll
    static void startGitServer() {
        server =
                OutsideHost.start(
                        "agentbox/sandbox:bookworm",
                        "while [ ! -x /srv/start ]; do sleep 0.1; done; exec /srv/start");
        DockerCli.ok("cp", "/bin/busybox", server.container() + ":/srv/busybox");
        DockerCli.ok(
                "exec",
                "-e",
                "GIT_USER=" + USER,
                "-e",
                "GIT_PASS=" + TOKEN,
                server.container(),
                "sh",
                "-c",
                SETUP);
    }

    @AfterAll
    static void stopGitServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (String body : answers) {
                assertThat(body).as("an answer of the API").doesNotContain(TOKEN);
            }
            Path logs = Path.of(System.getProperty("agentbox.it.server.dir")).resolve("logs");
            assertThat(FilesContaining.find(logs, TOKEN))
                    .as("server logs with the token")
                    .isEmpty();
        } finally {
            tenantA.close();
        }
    }

    /** A new bare repository on the server with one commit (README "hello"); its clone URL. */
    private static String newRepo() {
        String name = "r-" + UUID.randomUUID() + ".git";
        serverSh(
                "set -e; git init -q --bare -b main /srv/git/"
                        + name
                        + "; t=$(mktemp -d); cd $t; git init -q -b main; echo hello > README;"
                        + " git add README; git -c user.name=s -c user.email=s@x commit -q -m init;"
                        + " git push -q /srv/git/"
                        + name
                        + " main");
        return "http://" + server.address() + ":8080/cgi-bin/git/" + name;
    }

    private static String nameOf(String url) {
        return url.substring(url.lastIndexOf('/') + 1);
    }

    /** Commits {@code file} on the server's {@code main} as another clone would; its commit id. */
    private static String pushedByAnotherClone(String url, String file) {
        return serverSh(
                "set -e; t=$(mktemp -d); git clone -q /srv/git/"
                        + nameOf(url)
                        + " $t; cd $t; echo other > "
                        + file
                        + "; git add "
                        + file
                        + "; git -c user.name=o -c user.email=o@x commit -q -m other;"
                        + " git push -q origin main; git rev-parse HEAD");
    }

    private static String serverHead(String url) {
        return serverSh("git -C /srv/git/" + nameOf(url) + " rev-parse main");
    }

    private static String serverSh(String script) {
        return DockerCli.ok("exec", server.container(), "sh", "-c", script);
    }

    private String ensureBody(String url, String token) {
        return "{\"definitionId\":\"git-"
                + UUID.randomUUID()
                + "\",\"image\":\"agentbox/sandbox:bookworm\",\"policy\":{\"network\":\"bridge\"},"
                + "\"workspace\":{\"source\":{\"type\":\"git\",\"url\":"
                + Runs.jsonString(url)
                + "},\"secrets\":{\"GIT_TOKEN\":"
                + Runs.jsonString(token)
                + ",\"GIT_USERNAME\":\""
                + USER
                + "\"}}}";
    }

    private String clonedSandbox(String url) {
        HttpResponse<String> r = tenantA.ensureRaw(ensureBody(url, TOKEN));
        answers.add(r.body());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return Api.object(r).getString("key");
    }

    private String sh(String key, String command) {
        JsonObject r = tenantA.exec(key, command);
        answers.add(r.toString());
        assertThat(r.getInt("exitCode")).as(r.toString()).isZero();
        return r.getString("stdout");
    }

    private HttpResponse<String> git(String key, String op, String token, String body) {
        HttpRequest.Builder b = api.request("/api/v1/sandboxes/" + key + "/git/" + op, token);
        HttpResponse<String> r =
                api.send(
                        body == null
                                ? b.POST(HttpRequest.BodyPublishers.noBody())
                                : b.header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString(body)));
        answers.add(r.body());
        return r;
    }

    private HttpResponse<String> status(String key, String query) {
        HttpResponse<String> r =
                api.get("/api/v1/sandboxes/" + key + "/git/status" + query, Api.TENANT_A);
        answers.add(r.body());
        return r;
    }

    private static JsonObject ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Api.object(r);
    }

    @Test
    void aSandboxClonesWithItsTokenShowsItsChangesAndPushesACommitTheServerThenHas() {
        String url = newRepo();
        String key = clonedSandbox(url);
        assertThat(sh(key, "cat README")).isEqualTo("hello\n");

        JsonObject fresh = ok(status(key, ""));
        assertThat(fresh.getString("branch")).isEqualTo("main");
        assertThat(fresh.getString("upstream")).isEqualTo("origin/main");
        assertThat(fresh.getString("commit")).isEqualTo(serverHead(url));
        assertThat(fresh.getBoolean("clean")).isTrue();
        assertThat(fresh.getJsonArray("entries")).isEmpty();

        sh(key, "echo changed >> README && echo new > NEW.txt");
        JsonObject dirty = ok(status(key, ""));
        assertThat(dirty.getBoolean("clean")).isFalse();
        assertThat(dirty.getJsonArray("entries").getValuesAs(JsonObject.class))
                .extracting(
                        e -> e.getString("path"),
                        e -> e.getString("status"),
                        e -> e.getString("code"),
                        e -> e.getBoolean("staged"))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("README", "modified", ".M", false),
                        org.assertj.core.groups.Tuple.tuple("NEW.txt", "untracked", "??", false));

        sh(
                key,
                "git add -A && git -c user.name=a -c user.email=a@x commit -q -m change"
                        + " && git rev-parse HEAD");
        String commit = sh(key, "git rev-parse HEAD").strip();
        JsonObject committed = ok(status(key, ""));
        assertThat(committed.getBoolean("clean")).isTrue();
        assertThat(committed.getInt("ahead")).isEqualTo(1);

        JsonObject pushed = ok(git(key, "push", Api.TENANT_A, null));

        assertThat(serverHead(url)).isEqualTo(commit);
        assertThat(pushed.getString("commit")).isEqualTo(commit);
        assertThat(pushed.getInt("ahead")).isZero();
        assertThat(pushed.getBoolean("clean")).isTrue();
        assertThat(server.container()).isNotBlank();
        assertTokenOutOfTheClone(key);
    }

    @Test
    void aPullBringsInACommitAnotherClonePushed() {
        String url = newRepo();
        String key = clonedSandbox(url);
        String theirs = pushedByAnotherClone(url, "THEIRS.txt");

        JsonObject pulled = ok(git(key, "pull", Api.TENANT_A, "{\"dir\":\".\"}"));

        assertThat(pulled.getString("commit")).isEqualTo(theirs);
        assertThat(pulled.getInt("behind")).isZero();
        assertThat(sh(key, "cat THEIRS.txt")).isEqualTo("other\n");
        assertTokenOutOfTheClone(key);
    }

    @Test
    void aPushThatIsNotAFastForwardIsARejectedProblemAndAPullCannotFastForwardEither() {
        String url = newRepo();
        String key = clonedSandbox(url);
        String theirs = pushedByAnotherClone(url, "THEIRS.txt");
        sh(
                key,
                "echo mine > MINE.txt && git add MINE.txt && git -c user.name=a -c user.email=a@x commit -q -m mine");

        JsonObject rejected =
                assertProblem(git(key, "push", Api.TENANT_A, "{}"), 409, "git-failed");

        assertThat(rejected.getString("reason")).isEqualTo("rejected");
        assertThat(rejected.getString("operation")).isEqualTo("git push");
        assertThat(rejected.getInt("exitCode")).isNotZero();
        assertThat(rejected.getString("detail"))
                .startsWith("git push failed")
                .contains("[rejected]");
        assertThat(serverHead(url)).isEqualTo(theirs);

        JsonObject diverged =
                assertProblem(git(key, "pull", Api.TENANT_A, null), 409, "git-failed");
        assertThat(diverged.getString("reason")).isEqualTo("not-fast-forward");
        assertThat(diverged.getString("detail")).contains("Not possible to fast-forward");
        assertThat(sh(key, "git log -1 --format=%s")).isEqualTo("mine\n");
    }

    @Test
    void aWrongTokenFailsTheEnsureWithAnAuthenticationProblemThatCarriesNeitherToken() {
        String url = newRepo();
        String wrong = "wrong-" + UUID.randomUUID();

        HttpResponse<String> r = tenantA.ensureRaw(ensureBody(url, wrong));
        answers.add(r.body());

        JsonObject problem = assertProblem(r, 422, "setup-failed");
        assertThat(problem.getString("detail"))
                .contains("clone failed")
                .contains("Authentication failed")
                .doesNotContain(wrong);
    }

    @Test
    void gitWhereThereIsNoRepositoryOrNoRemoteIsAProblemSayingSo() {
        String url = newRepo();
        String key = clonedSandbox(url);
        sh(
                key,
                "mkdir -p /tmp/plain /tmp/local && cd /tmp/local && git init -q -b main"
                        + " && git -c user.name=a -c user.email=a@x commit -q --allow-empty -m one");

        JsonObject notRepo =
                assertProblem(
                        git(key, "push", Api.TENANT_A, "{\"dir\":\"/tmp/plain\"}"),
                        409,
                        "git-failed");
        assertThat(notRepo.getString("reason")).isEqualTo("not-a-repository");
        assertThat(notRepo.getString("detail")).contains("not a git repository");
        assertThat(
                        assertProblem(status(key, "?dir=/tmp/plain"), 409, "git-failed")
                                .getString("reason"))
                .isEqualTo("not-a-repository");

        assertThat(
                        assertProblem(
                                        git(key, "push", Api.TENANT_A, "{\"dir\":\"/tmp/local\"}"),
                                        409,
                                        "git-failed")
                                .getString("reason"))
                .isEqualTo("no-remote");
        assertThat(
                        assertProblem(
                                        git(key, "pull", Api.TENANT_A, "{\"dir\":\"/tmp/local\"}"),
                                        409,
                                        "git-failed")
                                .getString("reason"))
                .isEqualTo("no-remote");
        assertProblem(
                git(key, "pull", Api.TENANT_A, "{\"dir\":\"no/such/dir\"}"), 404, "not-found");
        JsonObject local = ok(status(key, "?dir=/tmp/local"));
        assertThat(local.isNull("upstream")).isTrue();
        assertThat(local.getInt("ahead")).isZero();
    }

    @Test
    void aBodyOtherThanAnOptionalDirIsRefusedAndAnotherTenantsSandboxIsNotFound() {
        String url = newRepo();
        String key = clonedSandbox(url);

        assertThat(
                        assertProblem(
                                        git(key, "push", Api.TENANT_A, "{\"dir\":5}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("dir");
        assertThat(
                        assertProblem(
                                        git(key, "pull", Api.TENANT_A, "{\"dir\":\" \"}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("dir");
        assertThat(
                        assertProblem(
                                        git(key, "push", Api.TENANT_A, "{\"remote\":\"origin\"}"),
                                        400,
                                        "invalid-request")
                                .getString("field"))
                .isEqualTo("remote");
        assertProblem(git(key, "push", Api.TENANT_A, "[]"), 400, "invalid-request");
        assertProblem(git(key, "push", Api.TENANT_A, "{\"dir\":"), 400, "invalid-request");
        HttpResponse<String> text =
                api.send(
                        api.request("/api/v1/sandboxes/" + key + "/git/push", Api.TENANT_A)
                                .header("Content-Type", "text/plain")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"dir\":\".\"}")));
        assertProblem(text, 415, "unsupported-media-type");

        assertProblem(git(key, "push", Api.TENANT_B, null), 404, "not-found");
        assertProblem(git(key, "pull", Api.TENANT_B, "{}"), 404, "not-found");
        HttpResponse<String> other =
                api.get("/api/v1/sandboxes/" + key + "/git/status", Api.TENANT_B);
        assertProblem(other, 404, "not-found");
        assertThat(serverHead(url)).isNotBlank();
    }

    /**
     * The token is in no file of the clone or the home directory, not in git's configuration, and
     * not in a snapshot of the sandbox.
     */
    private void assertTokenOutOfTheClone(String key) {
        String config = sh(key, "git config --list --show-origin");
        assertThat(config)
                .doesNotContain(TOKEN)
                .doesNotContain("credential")
                .contains("remote.origin.url=");
        JsonObject grep =
                tenantA.exec(
                        key,
                        "grep -rl -- '"
                                + TOKEN
                                + "' /workspace \"$HOME\" /etc/gitconfig /tmp 2>/dev/null; echo done");
        assertThat(grep.getString("stdout")).isEqualTo("done\n");
        HttpResponse<String> snap =
                api.send(
                        api.request("/api/v1/sandboxes/" + key + "/snapshots", Api.TENANT_A)
                                .POST(HttpRequest.BodyPublishers.noBody()));
        answers.add(snap.body());
        assertThat(snap.statusCode()).as(snap.body()).isEqualTo(201);
        String image = Api.object(snap).getString("snapshotId");
        DockerCli.Result inSnapshot =
                DockerCli.run(
                        "run",
                        "--rm",
                        "--network",
                        "none",
                        "--entrypoint",
                        "sh",
                        image,
                        "-c",
                        "grep -rl -- '"
                                + TOKEN
                                + "' /workspace /root /etc /tmp /dev/shm 2>/dev/null; echo done");
        assertThat(inSnapshot.out()).isEqualTo("done\n");
    }
}
