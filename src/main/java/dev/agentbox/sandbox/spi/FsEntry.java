package dev.agentbox.sandbox.spi;

/** One directory entry: {@code path} is the entry's full path in the sandbox. */
public record FsEntry(String name, String path, Type type) {

    public enum Type {
        FILE("file"),
        DIR("dir");

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }
}
