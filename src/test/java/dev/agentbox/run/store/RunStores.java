package dev.agentbox.run.store;

/** The three run stores over one shared state, as a test gets them from a {@link StoreBackend}. */
record RunStores(RunStore runs, ClaimStore claims, EventLog log) {}
