package dev.agentbox.sandbox.spi;

/** A piece of decoded process output, from one stream. */
public record OutputChunk(Stream stream, String text) {

    public enum Stream {
        STDOUT("stdout"),
        STDERR("stderr");

        private final String wireName;

        Stream(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }
}
