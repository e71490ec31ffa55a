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

    /**
     * A new, empty database beside the IT database, owned by the server role, named {@code
     * <name()>_<label>} (an older one of that name is dropped first): for a test whose servers the
     * IT server must not see. On a shared database the IT server's reaper (every 2 s, detached runs
     * eligible at once) finalizes or takes over their orphaned runs, racing what the test asserts
     * about its own servers. Its servers migrate the schema when they start. Returns its JDBC URL
     * without credentials; {@link #dropPrivate} removes it.
     */
    public static String createPrivate(String label) {
        String db = name() + "_" + label;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(urlAsSuperuser());
                java.sql.Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + db + " OWNER \"" + user() + "\"");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not create the test database " + db, e);
        }
        String base = url();
        int query = base.indexOf('?');
        String params = query < 0 ? "" : base.substring(query);
        String prefix = query < 0 ? base : base.substring(0, query);
        return prefix.substring(0, prefix.lastIndexOf('/') + 1) + db + params;
    }

    /** Drops a database {@link #createPrivate} made, closing whatever is still connected to it. */
    public static void dropPrivate(String label) {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(urlAsSuperuser());
                java.sql.Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name() + "_" + label + " WITH (FORCE)");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not drop the test database", e);
        }
    }

    private static String property(String key, String fallback) {
        String value = System.getProperty(key);
        return value == null || value.isBlank() ? fallback : value;
    }
}
