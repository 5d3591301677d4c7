package dev.sharding.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What D0-D3 report of the PostgreSQL server the launcher started: its settings and its busiest statements. */
final class PostgresFigures {

    private PostgresFigures() {}

    /** What the server runs as, read back from it. */
    static Map<String, Object> postgresSettings(EmbeddedPostgres pg) throws Exception {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("url", "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres");
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement st = c.createStatement()) {
            for (String q : List.of(
                    "server_version",
                    "fsync",
                    "synchronous_commit",
                    "wal_sync_method",
                    "shared_buffers",
                    "max_connections")) {
                try (ResultSet rs = st.executeQuery("SHOW " + q)) {
                    rs.next();
                    s.put(q, rs.getString(1));
                }
            }
        }
        return s;
    }

    /**
     * With {@code --pg-conf=shared_preload_libraries=pg_stat_statements}, creates the extension so that the run's
     * statements are counted; returns the server to read them from afterwards, or null.
     */
    static EmbeddedPostgres statementStatisticsOn(EmbeddedPostgres pg, Map<String, String> config) throws Exception {
        if (!config.getOrDefault("shared_preload_libraries", "").contains("pg_stat_statements")) {
            return null;
        }
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            st.execute("SELECT pg_stat_statements_reset()");
        }
        return pg;
    }

    /** The statements that took the server's time over the whole run (priming and warm-up included), most first. */
    static List<Map<String, Object>> topStatements(EmbeddedPostgres pg) throws Exception {
        List<Map<String, Object>> top = new ArrayList<>();
        try (Connection c = pg.getPostgresDatabase().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT calls, round(total_exec_time::numeric, 1), round(mean_exec_time::numeric * 1000, 1),"
                                + " rows, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), 160),"
                                + " round(total_plan_time::numeric, 1)"
                                + " FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15")) {
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("calls", rs.getLong(1));
                row.put("total_ms", rs.getBigDecimal(2));
                row.put("mean_us", rs.getBigDecimal(3));
                row.put("rows", rs.getLong(4));
                row.put("wal_bytes", rs.getBigDecimal(5));
                row.put("plan_ms", rs.getBigDecimal(7)); // 0 unless pg_stat_statements.track_planning=on
                row.put("query", rs.getString(6));
                top.add(row);
            }
        }
        return top;
    }
}
