package dev.sharding.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The launcher side of D1, the deposit workload: three node JVMs that all host the sample app's {@code Account}
 * entity, with the store on the starter's embedded H2 file database (shared by the three from the run's folder) or on
 * a PostgreSQL server the launcher starts for the run and stops after it. Every node runs its share of the callers
 * (ask chains) for a warm-up and a measured window that start on every node at the same moment; the launcher adds up
 * the asks and merges the round-trip histograms, then has node A read every balance, as the account answers it and
 * as the store holds it, and compares each with the deposits the callers saw acknowledged.
 */
final class DepositScenario {

    /** The stores D1 runs on. */
    static final List<String> STORES = List.of("h2", "postgresql");

    /**
     * What a D1 run does.
     *
     * @param callers ask chains over all nodes
     * @param accounts accounts the deposits are spread over
     * @param warmupSeconds warm-up before the measured window
     * @param measureSeconds the measured window
     * @param postgresConfig PostgreSQL settings changed for the run (besides the two that make it durable)
     */
    record Options(
            int callers, int accounts, int warmupSeconds, int measureSeconds, Map<String, String> postgresConfig) {

        /**
         * The defaults. The warm-up is a minute: with 10 s, the JIT compilers of the three JVMs still took 40% of the
         * two cores in the measured window (the database's large methods, compiled again and again), and the figure
         * measured the warm-up rather than the steady state.
         */
        static Options defaults() {
            return new Options(64, 10_000, 60, 30, new LinkedHashMap<>());
        }
    }

    /**
     * PostgreSQL settings of every run. The embedded server's library starts PostgreSQL with fsync off and
     * synchronous_commit off, so that a commit returns before it is on disk; these put back PostgreSQL's own
     * defaults, so that an acknowledged deposit is durable as it would be on a production server.
     */
    static final Map<String, String> DURABLE = Map.of("fsync", "on", "synchronous_commit", "on");

    private DepositScenario() {}

    /**
     * Runs D1, or with {@code plain} D0: the same load on three JVMs without sharding ({@link PlainDeposits}).
     *
     * @return the result line's figures
     */
    static ObjectNode run(
            Launcher launcher,
            String tag,
            String store,
            Options o,
            boolean plain,
            int readPercent,
            boolean eventSourced)
            throws Exception {
        String cluster = Launcher.newClusterName();
        List<Integer> ports = Ports.pick(3);
        String heap = Scenarios.heap("D1");
        String w = plain ? "D0" : "D1";
        List<String> common = new ArrayList<>(
                plain
                        ? List.of("--sharding.enabled=false", "--bench.name=plain")
                        : List.of("--bench.accounts=" + (eventSourced ? "event-sourced" : "durable")));
        Map<String, Object> database = new LinkedHashMap<>();
        EmbeddedPostgres statementStatistics = null;
        if (store.equals("postgresql")) {
            EmbeddedPostgres pg = launcher.startPostgres(tag, o.postgresConfig());
            common.add("--spring.datasource.url=jdbc:postgresql://localhost:" + pg.getPort() + "/postgres");
            common.add("--spring.datasource.username=postgres");
            common.add("--spring.datasource.password=");
            common.add("--sharding.store.initialize-schema=always");
            database.putAll(PostgresFigures.postgresSettings(pg));
            statementStatistics = PostgresFigures.statementStatisticsOn(pg, o.postgresConfig());
        } else {
            // the starter's embedded database: the first node opens the file and serves it to the others
            String url = "jdbc:h2:file:" + launcher.embeddedStorePath(tag)
                    + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;WRITE_DELAY=0";
            database.put("url", url);
            if (plain) {
                common.add("--spring.datasource.url=" + url);
            }
        }
        NodeProcess a =
                launcher.start(tag, "A", heap, with(Launcher.clusterArgs(cluster, ports.get(0), ports), common));
        a.await("READY", Launcher.seconds(180));
        if (!plain) {
            members(1, a);
        }
        NodeProcess b =
                launcher.start(tag, "B", heap, with(Launcher.clusterArgs(cluster, ports.get(1), ports), common));
        NodeProcess c =
                launcher.start(tag, "C", heap, with(Launcher.clusterArgs(cluster, ports.get(2), ports), common));
        b.await("READY", Launcher.seconds(180));
        c.await("READY", Launcher.seconds(180));
        List<NodeProcess> nodes = List.of(a, b, c);
        Map<String, JsonNode> primed = new LinkedHashMap<>();
        if (plain) {
            // A creates the table; then the others check it
            for (NodeProcess p : nodes) {
                p.send("D0-PRIME " + o.accounts() + " " + (p == a));
                primed.put(p.name(), Workloads.JSON.readTree(p.await("D0-PRIMED", Launcher.seconds(300))));
            }
        } else {
            members(3, a, b, c);
            for (NodeProcess p : nodes) {
                p.send("D1-PRIME " + o.accounts());
            }
            for (NodeProcess p : nodes) {
                primed.put(p.name(), Workloads.JSON.readTree(p.await("D1-PRIMED", Launcher.seconds(300))));
            }
        }

        int[] chains = split(o.callers(), nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i)
                    .send(w + "-RUN " + chains[i] + " " + o.accounts() + " " + o.warmupSeconds() * 1000L + " "
                            + o.measureSeconds() * 1000L + " " + readPercent);
        }
        List<ObjectNode> done = new ArrayList<>();
        for (NodeProcess p : nodes) {
            done.add((ObjectNode) Workloads.JSON.readTree(
                    p.await(w + "-DONE", Launcher.seconds(o.warmupSeconds() + o.measureSeconds() + 180))));
        }
        a.send(w + "-READ " + o.accounts());
        JsonNode balances = Workloads.JSON.readTree(a.await(w + "-BALANCES", Launcher.seconds(600)));
        if (statementStatistics != null) {
            database.put("pg_stat_statements", PostgresFigures.topStatements(statementStatistics));
        }
        return result(o, store, chains, nodes, primed, done, balances, database);
    }

    private static ObjectNode result(
            Options o,
            String store,
            int[] chains,
            List<NodeProcess> nodes,
            Map<String, JsonNode> primed,
            List<ObjectNode> done,
            JsonNode balances,
            Map<String, Object> database)
            throws Exception {
        int n = o.accounts();
        long[] acked = new long[n];
        long[] uncertain = new long[n];
        Histogram histogram = new Histogram(3);
        long windowAsks = 0;
        double asksPerSecond = 0;
        long warmupAsks = 0;
        long errors = 0;
        long ackedDeposits = 0;
        boolean drained = true;
        long batches = 0;
        long operations = 0;
        long failedBatches = 0;
        boolean haveBatches = true;
        ObjectNode perNode = Workloads.JSON.createObjectNode();
        for (int k = 0; k < done.size(); k++) {
            ObjectNode d = done.get(k);
            JsonNode ackedOfNode = d.get("acked");
            for (int i = 0; i < n; i++) {
                acked[i] += ackedOfNode.get(i).asLong();
            }
            for (Map.Entry<String, JsonNode> e : d.get("uncertain").properties()) {
                uncertain[Integer.parseInt(e.getKey())] += e.getValue().asLong();
            }
            histogram.add(Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(
                            Base64.getDecoder().decode(d.get("histogram").asString())),
                    0));
            long asks = d.get("window_asks").asLong();
            double seconds = d.get("window_s").asDouble();
            windowAsks += asks;
            asksPerSecond += asks / seconds;
            warmupAsks += d.get("warmup_asks").asLong();
            errors += d.get("errors").asLong();
            ackedDeposits += d.get("acked_deposits").asLong();
            drained &= d.get("drained").asBoolean();
            ObjectNode mine = Workloads.JSON.createObjectNode();
            mine.set("node", d.get("node"));
            mine.put("chains", chains[k]);
            mine.put("asks_per_s", Math.round(asks / seconds));
            mine.put("window_asks", asks);
            mine.set("errors", d.get("errors"));
            mine.set("shards", d.get("shards"));
            mine.set("prime_s", primed.get(nodes.get(k).name()).get("prime_s"));
            JsonNode s = d.get("store_window");
            if (s != null) {
                mine.set("store_window", s);
                batches += s.get("batches").asLong();
                operations += s.get("operations").asLong();
                failedBatches += s.get("failed_batches").asLong();
            } else {
                haveBatches = false;
            }
            perNode.set(nodes.get(k).name(), mine);
        }

        JsonNode byAsk = balances.get("by_ask");
        JsonNode stored = balances.get("stored");
        long lost = 0;
        long extra = 0;
        long lostAccounts = 0;
        long askStoreMismatches = 0;
        long ackedSum = 0;
        long storedSum = 0;
        long uncertainSum = 0;
        String firstBad = null;
        for (int i = 0; i < n; i++) {
            long s = stored.get(i).asLong();
            ackedSum += acked[i];
            storedSum += s;
            uncertainSum += uncertain[i];
            if (s < acked[i]) {
                lost += acked[i] - s;
                lostAccounts++;
            } else if (s > acked[i] + uncertain[i]) {
                extra += s - acked[i] - uncertain[i];
            }
            if (byAsk.get(i).asLong() != s) {
                askStoreMismatches++;
            }
            if (firstBad == null
                    && (s < acked[i]
                            || s > acked[i] + uncertain[i]
                            || byAsk.get(i).asLong() != s)) {
                firstBad = DepositWorkload.id(i) + ": acknowledged " + acked[i] + " (+ " + uncertain[i]
                        + " in failed asks), stored " + s + ", answered "
                        + byAsk.get(i).asLong();
            }
        }

        ObjectNode r = Workloads.JSON.createObjectNode();
        r.put("asks_per_s", Math.round(asksPerSecond));
        r.put("p50_us", Workloads.micros(histogram.getValueAtPercentile(50.0)));
        r.put("p99_us", Workloads.micros(histogram.getValueAtPercentile(99.0)));
        r.put("n", windowAsks);
        r.put("store", store);
        r.put("lost", lost);
        r.put("p999_us", Workloads.micros(histogram.getValueAtPercentile(99.9)));
        r.put("max_us", Workloads.micros(histogram.getMaxValue()));
        r.put("mean_us", Math.round(histogram.getMean() / 100.0) / 10.0);
        r.put("callers", o.callers());
        r.put("accounts", n);
        r.put("warmup_s", o.warmupSeconds());
        r.put("measure_s", o.measureSeconds());
        r.put("warmup_asks", warmupAsks);
        r.put("errors", errors);
        if (haveBatches) {
            ObjectNode batching = Workloads.JSON.createObjectNode();
            batching.put("batches", batches);
            batching.put("operations", operations);
            batching.put("failed_batches", failedBatches);
            batching.put("operations_per_batch", batches == 0 ? 0 : Math.round(10.0 * operations / batches) / 10.0);
            batching.put("commits_per_s", Math.round(batches / (double) o.measureSeconds()));
            r.set("store_batching_window", batching);
        }
        r.set("per_node", perNode);
        ObjectNode check = Workloads.JSON.createObjectNode();
        check.put("acked_deposits", ackedDeposits);
        check.put("acked_amount", ackedSum);
        check.put("failed_asks_amount", uncertainSum);
        check.put("stored_balance_sum", storedSum);
        check.put("lost_amount", lost);
        check.put("lost_accounts", lostAccounts);
        check.put("extra_amount", extra);
        check.put("ask_vs_store_mismatches", askStoreMismatches);
        check.put("all_callers_stopped", drained);
        r.set("check", check);
        if (balances.has("projection")) {
            r.set("projection", balances.get("projection"));
        }
        r.set("database", Workloads.JSON.valueToTree(database));
        List<String> problems = new ArrayList<>();
        if (lost > 0) {
            problems.add("LOST " + lost + " of the acknowledged amount in " + lostAccounts + " accounts");
        }
        if (extra > 0) {
            problems.add("balances exceed what was deposited by " + extra);
        }
        if (askStoreMismatches > 0) {
            problems.add(askStoreMismatches + " accounts answer a balance other than the stored one");
        }
        if (!drained) {
            problems.add("some callers still waited for a reply 60 s after the window");
        }
        if (!problems.isEmpty()) {
            r.put("error", String.join("; ", problems) + " (first: " + firstBad + ")");
        }
        return r;
    }

    /** Callers per node: as even as can be, the remainder on the first nodes. */
    static int[] split(int callers, int nodes) {
        int[] share = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            share[i] = callers / nodes + (i < callers % nodes ? 1 : 0);
        }
        return share;
    }

    private static List<String> with(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static void members(int n, NodeProcess... nodes) throws Exception {
        for (NodeProcess p : nodes) {
            p.send("MEMBERS " + n);
        }
        for (NodeProcess p : nodes) {
            p.await("MEMBERS", Launcher.seconds(180));
        }
    }

    static Path dataDirectory(Path logs, String tag) throws Exception {
        Path dir = logs.resolve(tag + "-store").resolve("postgresql");
        Files.createDirectories(dir.getParent());
        return dir;
    }
}
