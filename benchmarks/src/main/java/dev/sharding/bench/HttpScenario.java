package dev.sharding.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The launcher side of the HTTP workloads. H1 runs the sample app itself (its runnable jar), three nodes in one
 * cluster; H0 runs the baseline without sharding (the benchmarks-baseline jar), three instances on one database; H2-READS
 * and H0-READS the same two with 90% balance reads. The store is the embedded H2 file (H1: the sample's default, which
 * the first node serves to the others; H0: the same kind of file URL) or a PostgreSQL server the launcher starts. The
 * load ({@link HttpLoad}) runs in this JVM over three phases, then every balance is read back over HTTP and compared
 * with the acknowledged deposits ({@link BalanceCheck}).
 */
final class HttpScenario {

    /** The H workloads. */
    static final List<String> WORKLOADS = List.of("H1", "H0", "H2-READS", "H0-READS");

    /** The stores they run on. */
    static final List<String> STORES = List.of("h2", "postgresql");

    private static final Duration READY = Duration.ofSeconds(180);

    /**
     * What an H run does.
     *
     * @param stores the stores, one line each
     * @param connectionsPerNode load connections to each node
     * @param accounts accounts the requests are spread over
     * @param phaseSeconds length of each of the three phases
     * @param warmupSeconds load before the phases, on accounts of their own ({@code w-<i>}), not measured; 0 for none
     * @param heap heap of each application JVM
     * @param sampleJar the sample app's runnable jar
     * @param baselineJar the baseline's runnable jar
     */
    record Options(
            List<String> stores,
            int connectionsPerNode,
            int accounts,
            int phaseSeconds,
            int warmupSeconds,
            String heap,
            Path sampleJar,
            Path baselineJar) {

        /** The defaults: those of the wrk script the figures came from (21 connections per node, 20 s). */
        static Options defaults() {
            return new Options(
                    List.of("h2"),
                    21,
                    10_000,
                    20,
                    0,
                    "384m",
                    besideProject("sample-app/target/sample-app.jar"),
                    besideProject("benchmarks-baseline/target/benchmarks-baseline.jar"));
        }

        /** {@return a problem with the options, or null} */
        @org.jspecify.annotations.Nullable
        String problem() {
            if (connectionsPerNode < 1
                    || accounts < 1
                    || phaseSeconds < 1
                    || warmupSeconds < 0
                    || !heap.matches("[0-9]+[kmgKMG]")) {
                return "H workloads need at least 1 connection per node, 1 account, phases of at least 1 s, a warm-up of"
                        + " 0 s or more and a heap such as 384m";
            }
            return stores.stream()
                    .filter(s -> !STORES.contains(s))
                    .findFirst()
                    .map(s -> "Unknown store " + s + "; known: " + STORES)
                    .orElse(null);
        }
    }

    /** A jar of the project, found from this jar's place (benchmarks/target/) or else from the working directory. */
    static Path besideProject(String relative) {
        String cp = System.getProperty("java.class.path", "");
        if (cp.endsWith(".jar") && !cp.contains(java.io.File.pathSeparator)) {
            Path root = Path.of(cp).toAbsolutePath().getParent().getParent().getParent();
            return root.resolve(relative);
        }
        Path here = Path.of(relative).toAbsolutePath();
        return Files.exists(here)
                ? here
                : Path.of("..").resolve(relative).toAbsolutePath().normalize();
    }

    private HttpScenario() {}

    static ObjectNode run(Launcher launcher, String w, String tag, String store, Options o) throws Exception {
        boolean baseline = w.startsWith("H0");
        int readPercent = w.endsWith("-READS") ? 90 : 0;
        Path jar = baseline ? o.baselineJar() : o.sampleJar();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No jar " + jar + ": build the project (./mvnw package -DskipTests) or"
                    + " name it with " + (baseline ? "--baseline-jar" : "--sample-jar"));
        }
        List<String> db = new ArrayList<>();
        Map<String, Object> database = new LinkedHashMap<>();
        if (store.equals("postgresql")) {
            EmbeddedPostgres pg = launcher.startPostgres(tag, launcher.deposit().postgresConfig());
            String url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
            db.addAll(List.of("--spring.datasource.url=" + url, "--spring.datasource.username=postgres"));
            db.add("--spring.datasource.password=");
            database.put("url", url);
        } else if (baseline) {
            String url = "jdbc:h2:file:" + launcher.embeddedStorePath(tag)
                    + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;WRITE_DELAY=0";
            db.add("--spring.datasource.url=" + url);
            database.put("url", url);
        } else {
            db.add("--sharding.store.embedded-path=" + launcher.embeddedStorePath(tag));
            database.put("url", "the sample's embedded H2 file, served by n1 (AUTO_SERVER)");
        }
        List<Integer> ports = Ports.pick(6);
        List<Integer> jgroups = ports.subList(0, 3);
        List<Integer> http = ports.subList(3, 6);
        String cluster = Launcher.newClusterName();
        List<NodeProcess> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String name = (baseline ? "h0-" : "n") + (i + 1);
            List<String> args = baseline
                    ? new ArrayList<>(List.of("--server.port=" + http.get(i), "--baseline.node-name=" + name))
                    : SampleNodes.args(cluster, name, http.get(i), jgroups.get(i), jgroups);
            args.addAll(db);
            nodes.add(launcher.startJar(tag, name, o.heap(), jar, args));
            if (i == 0) {
                // the first alone: the sample's coordinator and H2 server; the baseline's schema
                SampleNodes.awaitReady(nodes.get(0), http.get(0), baseline ? 0 : 1, READY);
            }
        }
        for (int i = 1; i < 3; i++) {
            SampleNodes.awaitReady(nodes.get(i), http.get(i), baseline ? 0 : 3, READY);
        }
        if (!baseline) {
            SampleNodes.awaitReady(nodes.get(0), http.get(0), 3, READY);
        }

        CpuSplit cpu = CpuSplit.ofNodes(
                nodes,
                store.equals("postgresql")
                        ? Map.<String, Supplier<List<Long>>>of("database", launcher::databasePids)
                        : Map.of());
        ObjectNode warmup = o.warmupSeconds() > 0 ? warmUp(w, http, o, readPercent) : null;
        System.err.println("[bench] " + w + ": " + o.connectionsPerNode() * 3 + " connections, three phases of "
                + o.phaseSeconds() + " s");
        HttpLoad load = new HttpLoad(
                http,
                o.connectionsPerNode(),
                o.accounts(),
                HttpLoad.MEASURED_PREFIX,
                readPercent,
                o.phaseSeconds() * 1_000_000_000L);
        HttpLoad.Outcome out = load.run(k -> cpu.snapshot());
        long[] balances = BalanceReader.read(http, o.accounts());
        BalanceCheck check = BalanceCheck.of(out.acked(), out.uncertain(), balances);
        ObjectNode r = result(w, o, readPercent, out, cpu, check, database);
        if (warmup != null) {
            r.set("warmup", warmup);
        }
        return r;
    }

    /** Runs the warm-up's load on its own accounts; {@return what it counted: its length, answers and errors} */
    private static ObjectNode warmUp(String w, List<Integer> http, Options o, int readPercent)
            throws InterruptedException {
        System.err.println("[bench] " + w + ": warm-up of " + o.warmupSeconds() + " s on accounts of its own");
        HttpLoad.Outcome out = new HttpLoad(
                        http,
                        o.connectionsPerNode(),
                        o.accounts(),
                        HttpLoad.WARM_UP_PREFIX,
                        readPercent,
                        o.warmupSeconds() * 1_000_000_000L / HttpLoad.PHASES.size())
                .run(k -> {});
        HttpLoad.PhaseTally all = new HttpLoad.PhaseTally();
        out.phases().forEach(all::add);
        ObjectNode counted = Workloads.JSON.createObjectNode();
        counted.put("s", o.warmupSeconds());
        counted.put("ok", all.ok);
        counted.put("errors", all.clientErrors + all.serverErrors + all.ioErrors);
        return counted;
    }

    private static ObjectNode result(
            String w,
            Options o,
            int readPercent,
            HttpLoad.Outcome out,
            CpuSplit cpu,
            BalanceCheck check,
            Map<String, Object> database) {
        ObjectNode r = Workloads.JSON.createObjectNode();
        ObjectNode phases = Workloads.JSON.createObjectNode();
        long n = 0;
        for (int k = 0; k < HttpLoad.PHASES.size(); k++) {
            HttpLoad.PhaseTally t = out.phases().get(k);
            ObjectNode p = HttpReport.phase(t, o.phaseSeconds(), readPercent > 0);
            cpu.putPhase(k, p.get("requests").asLong(), p);
            phases.set(HttpLoad.PHASES.get(k), p);
            n += p.get("requests").asLong();
        }
        for (String f : HttpReport.figures(w)) {
            String phase = f.substring(0, f.indexOf('_'));
            String key = f.substring(f.indexOf('_') + 1);
            JsonNode p = phases.get(phase);
            JsonNode v = key.equals("cpu_ms_per_request")
                    ? p.path("cpu_ms_per_request").get("total")
                    : p.get(key);
            r.set(f, v);
        }
        r.put("n", n);
        r.put("lost", check.lostAmount());
        r.set("phases", phases);
        r.set("check", Workloads.JSON.valueToTree(check.fields()));
        r.put("connections", o.connectionsPerNode() * 3);
        r.put("accounts", o.accounts());
        r.put("phase_s", o.phaseSeconds());
        r.put("warmup_s", o.warmupSeconds());
        r.put("read_percent", readPercent);
        r.put("connects", out.connects());
        r.put("late_answers", out.lateAnswers());
        r.set("database", Workloads.JSON.valueToTree(database));
        List<String> problems = new ArrayList<>();
        if (check.error() != null) {
            problems.add(check.error());
        }
        if (!out.allStopped()) {
            problems.add("some connections still waited for an answer after the last phase");
        }
        if (!problems.isEmpty()) {
            r.put("error", String.join("; ", problems));
        }
        return r;
    }
}
