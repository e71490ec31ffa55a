package dev.agentbox.sandbox.datapath;

import java.util.List;
import java.util.Optional;

/**
 * Starts a captured {@code /bin/sh} script in one sandbox, by the provider's path: its channel
 * ({@link ChannelCall#start}), or something of its own where it has no channel.
 */
@FunctionalInterface
public interface ScriptRunner {

    /**
     * Starts {@code scriptAndArgs} (a script, then its positional parameters; {@code $0} is {@code
     * agentbox}). With {@code pid}, the script's process group is recorded under that name in
     * {@link ProcessGroups#PROC_DIR} while it runs, so it can be killed.
     *
     * @throws dev.agentbox.problem.ProblemException {@code not-found} or {@code
     *     sandbox-not-running} when the sandbox is gone; {@code provider-unavailable} when nothing
     *     could start it
     */
    CapturedExec start(
            Optional<String> pid,
            List<String> scriptAndArgs,
            List<String> env,
            String cwd,
            long cap);
}
