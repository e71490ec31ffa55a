package dev.agentbox.it;

/**
 * The PostgreSQL database of the PostgreSQL pass's IT server, which the jar servers of the {@code
 * *PostgresIT} tests share with it and which some tests read directly. Set by the postgres profile
 * from {@code it.db.url}, {@code it.db.user} and {@code it.db.password} (so a checkout can run the
 * pass on a database and role of its own); defaults are those of {@code scripts/postgres}.
 */
public final class ItDatabase {

    private ItDatabase() {}

    /** JDBC URL without credentials, e.g. {@code jdbc:postgresql://127.0.0.1:5432/agentbox_it}. */
    public static String url() {
        return property("agentbox.it.db.url", "jdbc:postgresql://127.0.0.1:5432/agentbox_it");
    }

    /** The database's name, the URL's path without parameters, e.g. {@code agentbox_it}. */
    public static String name() {
        String path = url().substring(url().lastIndexOf('/') + 1);
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    public static String user() {
        return property("agentbox.it.db.user", "agentbox");
    }

    public static String password() {
        return property("agentbox.it.db.password", "agentbox");
    }

    /** The URL with the server role's credentials, for a test's own JDBC connection. */
    public static String urlWithCredentials() {
        return url()
                + (url().contains("?") ? "&" : "?")
                + "user="
                + user()
                + "&password="
                + password();
    }

    /** The URL as the superuser {@code postgres} (trust authentication on loopback). */
    public static String urlAsSuperuser() {
        return url() + (url().contains("?") ? "&" : "?") + "user=postgres";
    }

    private static String property(String key, String fallback) {
        String value = System.getProperty(key);
        return value == null || value.isBlank() ? fallback : value;
    }
}
