package dev.agentbox.platform.schema;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * What a database's agentbox tables look like, read from JDBC metadata: every {@code AB_*} table's
 * columns (type, size, nullability), primary key, unique constraints, indexes and foreign keys, as
 * sorted lines that two databases can be compared by. Liquibase's own tables are not part of it.
 *
 * <p>Index and constraint names are left out where the database makes them up (PostgreSQL's {@code
 * *_pkey}, Derby's {@code SQL…}): what is compared is which columns they cover.
 */
public final class SchemaShape {

    private SchemaShape() {}

    public static List<String> of(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return of(c);
        }
    }

    static List<String> of(Connection c) throws SQLException {
        DatabaseMetaData meta = c.getMetaData();
        String schema = c.getSchema();
        TreeSet<String> lines = new TreeSet<>();
        for (String table : tables(meta, schema)) {
            try (ResultSet rs = meta.getColumns(null, schema, table, null)) {
                while (rs.next()) {
                    String type = rs.getString("TYPE_NAME");
                    int size = rs.getInt("COLUMN_SIZE");
                    lines.add(
                            table
                                    + " column "
                                    + rs.getString("COLUMN_NAME")
                                    + " "
                                    + type
                                    + (sized(type) ? "(" + size + ")" : "")
                                    + ("NO".equals(rs.getString("IS_NULLABLE")) ? " NOT NULL" : "")
                                    + (rs.getString("COLUMN_DEF") == null
                                            ? ""
                                            : " DEFAULT " + rs.getString("COLUMN_DEF")));
                }
            }
            Map<String, TreeMap<Integer, String>> pk = new TreeMap<>();
            try (ResultSet rs = meta.getPrimaryKeys(null, schema, table)) {
                while (rs.next()) {
                    pk.computeIfAbsent("pk", k -> new TreeMap<>())
                            .put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
                }
            }
            pk.values().forEach(cols -> lines.add(table + " primary key " + cols.values()));
            Map<String, TreeMap<Integer, String>> indexes = new TreeMap<>();
            Map<String, Boolean> unique = new TreeMap<>();
            try (ResultSet rs = meta.getIndexInfo(null, schema, table, false, false)) {
                while (rs.next()) {
                    String name = rs.getString("INDEX_NAME");
                    if (name == null) {
                        continue;
                    }
                    indexes.computeIfAbsent(name, k -> new TreeMap<>())
                            .put(
                                    (int) rs.getShort("ORDINAL_POSITION"),
                                    rs.getString("COLUMN_NAME"));
                    unique.put(name, !rs.getBoolean("NON_UNIQUE"));
                }
            }
            for (var e : indexes.entrySet()) {
                String cols = e.getValue().values().toString();
                boolean isPk =
                        pk.containsKey("pk") && pk.get("pk").values().toString().equals(cols);
                if (isPk) {
                    continue; // the primary key's own index
                }
                String name = e.getKey();
                lines.add(
                        table
                                + (unique.get(e.getKey()) ? " unique " : " index ")
                                + cols
                                + (generatedName(name.toUpperCase(Locale.ROOT)) ? "" : " " + name));
            }
            try (ResultSet rs = meta.getImportedKeys(null, schema, table)) {
                while (rs.next()) {
                    lines.add(
                            table
                                    + " foreign key "
                                    + rs.getString("FKCOLUMN_NAME")
                                    + " -> "
                                    + rs.getString("PKTABLE_NAME")
                                    + "."
                                    + rs.getString("PKCOLUMN_NAME"));
                }
            }
        }
        return new ArrayList<>(lines);
    }

    /** The agentbox tables of {@code schema}, in the case the database stores them. */
    static List<String> tables(DatabaseMetaData meta, String schema) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (ResultSet rs = meta.getTables(null, schema, null, new String[] {"TABLE"})) {
            while (rs.next()) {
                String name = rs.getString("TABLE_NAME");
                if (name.toUpperCase(Locale.ROOT).startsWith("AB_")) {
                    tables.add(name);
                }
            }
        }
        return tables;
    }

    private static boolean sized(String type) {
        return type.contains("CHAR")
                || type.equals("NUMERIC")
                || type.equals("DECIMAL")
                || type.equals("CLOB")
                || type.equals("BLOB");
    }

    private static boolean generatedName(String name) {
        return name.startsWith("SQL") || name.endsWith("_PKEY") || name.endsWith("_KEY");
    }
}
