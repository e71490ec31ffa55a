/**
 * A sandbox's data path over its sandbox channel, shared by the providers whose sandboxes run the
 * helper (Docker over a Unix socket, Kubernetes over TCP): bounded execs ({@code BoundedExecs}),
 * background processes ({@code ChannelProcess}), their process groups and kills ({@code
 * ProcessGroups}), files and follows ({@code ChannelFs}). Nothing here knows an engine or an API
 * server: a provider gives its channel and, where it has one, its own path for when there is no
 * channel ({@code ScriptRunner}).
 */
package dev.agentbox.sandbox.datapath;
