package dev.sharding.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs the workloads: for each run of each chosen workload it starts the node JVMs on free loopback ports with a
 * cluster name of their own, sends them their commands, reads the measuring node's result, stops every JVM (also
 * when the run fails, and from a shutdown hook) and prints one JSON line per workload on standard output. Progress,
 * every run's line and the node logs' places go to standard error.
 *
 * <p>The options are those of {@link LaunchOptions}.
 */
final class Launcher {

    static final List<String> ALL = List.of("W1", "W2", "W3", "W4", "W5", "W6", "W7");

    /** The cluster secret of {@code --secret}: only for measuring its cost, never for a real cluster. */
    static final String BENCH_SECRET = "benchmark-secret-not-for-production";

    /** Workloads that run only when named. */
    static final List<String> EXTRA = List.of(
            "D0",
            "D1",
            "D2",
            "D0-READS",
            "D3",
            "W6-ASKS",
            "W7-HANG",
            "W8",
            "W9",
            "W10",
            "E1",
            "H1",
            "H0",
            "H2-READS",
            "H0-READS");

    static final String SYSTEM = "sharding-jgroups";

    private final Path logs;

    private final Path jfr;

    private final List<String> extraJvmArgs;

    private final List<String> extraNodeArgs = new ArrayList<>();

    private final List<NodeProcess> live = new CopyOnWriteArrayList<>();

    private final List<NodeProcess> started = new ArrayList<>();

    /** Servers of the current run (D1's PostgreSQL), stopped after its nodes; also from the shutdown hook. */
    private final List<PostgresServer> servers = new CopyOnWriteArrayList<>();

    /** The command line: the workloads' own options. */
    private final LaunchOptions options;

    private Launcher(LaunchOptions options) {
        this.logs = options.logs().toAbsolutePath();
        this.jfr = options.jfr();
        this.extraJvmArgs = options.jvmArgs();
        this.options = options;
    }

    static int run(String[] args) throws Exception {
        LaunchOptions o = LaunchOptions.parse(args);
        if (o == null) {
            return 2;
        }
        if (o.summary() != null) {
            return JfrSummary.run(o.summary(), o.top(), o.from(), o.to(), System.out);
        }
        List<String> workloads = o.workloads();
        List<String> stores = o.stores();
        int runs = o.runs();
        Path logs = o.logs();
        Path jfr = o.jfr();
        Files.createDirectories(logs);
        if (jfr != null) {
            Files.createDirectories(jfr);
        }
        Launcher launcher = new Launcher(o);
        launcher.extraNodeArgs.addAll(o.nodeArgs());
        Thread hook = new Thread(launcher::killAll, "bench-kill-nodes");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean allOk = true;
        try {
            for (String w : workloads) {
                // D0, D1 and E1 run once per store, W8 once per number of nodes; the others have no variants
                List<String> variants = Scenarios.DEPOSITS.contains(w) || w.equals("E1")
                        ? stores
                        : HttpScenario.WORKLOADS.contains(w)
                                ? o.http().stores()
                                : w.equals("W8")
                                        ? o.scale().nodes().stream()
                                                .map(String::valueOf)
                                                .toList()
                                        : Collections.singletonList(null);
                for (String variant : variants) {
                    List<ObjectNode> done = new ArrayList<>();
                    for (int r = 1; r <= runs; r++) {
                        ObjectNode line = launcher.runOnce(w, r, variant);
                        done.add(line);
                        allOk &= !line.has("error");
                        Files.writeString(
                                logs.resolve("raw.jsonl"),
                                line + System.lineSeparator(),
                                StandardCharsets.UTF_8,
                                StandardOpenOption.CREATE,
                                StandardOpenOption.APPEND);
                        if (runs > 1) {
                            System.err.println("run " + r + ": " + line);
                        }
                    }
                    System.out.println(runs == 1 ? done.get(0) : Summary.of(w, done));
                    System.out.flush();
                }
            }
        } finally {
            launcher.killAll();
        }
        return allOk ? 0 : 1;
    }

    static Path defaultLogDir() {
        String cp = System.getProperty("java.class.path", "");
        if (cp.endsWith(".jar") && !cp.contains(java.io.File.pathSeparator)) {
            Path jar = Path.of(cp).toAbsolutePath();
            return jar.getParent().resolve("bench-logs");
        }
        return Path.of("bench-logs");
    }

    private void killAll() {
        for (NodeProcess p : live) {
            p.destroy();
        }
        stopServers();
    }

    private void stopServers() {
        for (PostgresServer server : servers) {
            try {
                server.postgres().close();
            } catch (IOException | RuntimeException e) {
                System.err.println("[bench] stopping PostgreSQL failed: " + e);
            }
            servers.remove(server);
        }
    }

    /**
     * Starts a PostgreSQL server for the current run, on a free port, with its data in the run's folder (removed
     * when it stops) and its log beside the nodes' logs. Stopped after the run's nodes, also when the run fails.
     */
    EmbeddedPostgres startPostgres(String tag, Map<String, String> config) throws IOException {
        Path data;
        try {
            data = DepositScenario.dataDirectory(logs, tag);
        } catch (Exception e) {
            throw new IOException(e);
        }
        ProcessBuilder.Redirect log = ProcessBuilder.Redirect.appendTo(
                logs.resolve(tag + "-postgresql.log").toFile());
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(true)
                .setOutputRedirector(log)
                .setErrorRedirector(log)
                .setPGStartupWait(Duration.ofSeconds(60)); // the default 10 s is too short on a loaded machine
        DepositScenario.DURABLE.forEach(builder::setServerConfig);
        config.forEach(builder::setServerConfig);
        System.err.println("[bench] starting PostgreSQL (log " + logs.resolve(tag + "-postgresql.log") + ")");
        EmbeddedPostgres pg = builder.start();
        servers.add(new PostgresServer(pg, data));
        return pg;
    }

    DepositScenario.Options deposit() {
        return options.deposit();
    }

    ScaleScenario.Options scale() {
        return options.scale();
    }

    HttpScenario.Options http() {
        return options.http();
    }

    DensityScenario.Options density() {
        return options.density();
    }

    KillScenario.Options kill() {
        return options.kill();
    }

    /**
     * One run of one workload; its JSON line, with {@code error} when it failed.
     *
     * @param variant the store of D0-D2, the number of nodes of W8, else null
     */
    private ObjectNode runOnce(String w, int run, String variant) {
        String tag = w + (variant == null ? "" : "-" + variant) + "-"
                + Instant.now().toString().replace(':', '-') + "-run" + run;
        String label = w + (variant == null ? "" : " (" + variant + (w.equals("W8") ? " nodes)" : ")"));
        System.err.println(
                "[bench] " + label + " run " + run + ": starting nodes (logs " + logs + "/" + tag + "-*.log)");
        String load = MachineLoad.loadAverage();
        double busy0 = MachineLoad.busySeconds();
        double self0 = MachineLoad.cpuSeconds(ProcessHandle.current());
        long wall0 = System.nanoTime();
        started.clear();
        ObjectNode result;
        double serversCpu = 0;
        try {
            result = Scenarios.run(this, w, tag, variant);
        } catch (Exception e) {
            result = Workloads.JSON.createObjectNode();
            result.put("error", e.getMessage() == null ? e.toString() : e.getMessage());
        } finally {
            for (NodeProcess p : started) {
                p.cpuSeconds();
            }
            // while the nodes are connected, so that the server's backends are still there to be counted
            for (PostgresServer server : servers) {
                serversCpu += server.cpuSeconds();
            }
            for (NodeProcess p : started) {
                p.close();
                live.remove(p);
            }
            stopServers();
        }
        double mine = MachineLoad.cpuSeconds(ProcessHandle.current()) - self0 + serversCpu;
        for (NodeProcess p : started) {
            mine += p.cpuSeconds();
        }
        double busy = MachineLoad.busySeconds() - busy0;
        ObjectNode machine = Workloads.JSON.createObjectNode();
        machine.put("loadavg_at_start", load);
        machine.put("run_wall_s", Workloads.round3(Workloads.seconds(System.nanoTime() - wall0)));
        machine.put("machine_busy_cpu_s", Math.round(busy * 100) / 100.0);
        machine.put("bench_cpu_s", Math.round(mine * 100) / 100.0);
        if (serversCpu > 0) {
            machine.put("postgresql_cpu_s", Math.round(serversCpu * 100) / 100.0);
        }
        machine.put("other_cpu_s", Math.round((busy - mine) * 100) / 100.0);
        ObjectNode line = Scenarios.describe(this, w, result, variant);
        line.put("run", run);
        line.set("machine", machine);
        System.err.println("[bench] " + label + " run " + run + " done in " + machine.get("run_wall_s") + " s"
                + (line.has("error") ? ": " + line.get("error") : ""));
        if (!line.has("error")) {
            // a D run leaves over a gigabyte of database files; a failed run keeps them to be looked at
            deleteTree(logs.resolve(tag + "-store"));
        }
        return line;
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
            System.err.println("[bench] could not delete " + dir + ": " + e);
        }
    }

    /** Starts one node JVM of the current run. */
    NodeProcess start(String tag, String name, String heap, List<String> appArgs) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags(heap));
        cmd.addAll(jfrFlags(tag, name));
        String cp = System.getProperty("java.class.path");
        if (cp.endsWith(".jar") && !cp.contains(java.io.File.pathSeparator)) {
            cmd.add("-jar");
            cmd.add(cp);
        } else {
            cmd.add("-cp");
            cmd.add(cp);
            cmd.add(BenchmarkMain.class.getName());
        }
        cmd.add(BenchmarkMain.NODE_ROLE);
        cmd.add("--bench.name=" + name);
        cmd.addAll(appArgs);
        // the nodes of one run share a store, and no run sees another's: the embedded database (when the starter
        // keeps its state in one) lives in a folder of the run, not in the working directory
        cmd.add("--sharding.store.embedded-path=" + embeddedStorePath(tag));
        cmd.addAll(extraNodeArgs);
        NodeProcess p = new NodeProcess(name, cmd, logs.resolve(tag + "-" + name + ".log"));
        started.add(p);
        live.add(p);
        return p;
    }

    /**
     * Starts a JVM of the current run from another runnable jar (the H workloads' HTTP applications), with the
     * workload's heap, the extra JVM flags and the JFR recording as for the nodes. It is stopped with SIGTERM.
     */
    NodeProcess startJar(String tag, String name, String heap, Path jar, List<String> appArgs) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags(heap));
        cmd.addAll(jfrFlags(tag, name));
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(appArgs);
        // not --no-meters' exclusion: it would replace the application's own spring.autoconfigure.exclude
        extraNodeArgs.stream().filter(a -> !a.contains(LaunchOptions.NO_METERS)).forEach(cmd::add);
        NodeProcess p = NodeProcess.withoutCommands(name, cmd, logs.resolve(tag + "-" + name + ".log"));
        started.add(p);
        live.add(p);
        return p;
    }

    /** {@return the processes of the current run's PostgreSQL servers: each postmaster and its children now} */
    List<Long> databasePids() {
        List<Long> pids = new ArrayList<>();
        servers.forEach(s -> pids.addAll(s.pids()));
        return pids;
    }

    /** A JFR recording of the JVM when asked for, with exact lines for inlined frames (else samples land on safepoints). */
    private List<String> jfrFlags(String tag, String name) {
        return jfr == null
                ? List.of()
                : List.of(
                        "-XX:+UnlockDiagnosticVMOptions",
                        "-XX:+DebugNonSafepoints",
                        "-XX:StartFlightRecording=settings=profile,filename=" + jfr.resolve(tag + "-" + name + ".jfr"));
    }

    /** Where the nodes of a run keep the embedded database (when the starter keeps its state in one). */
    Path embeddedStorePath(String tag) {
        return logs.resolve(tag + "-store").resolve("sharding");
    }

    /** The flags of every node JVM: the heap of the workload, IPv4 for JGroups, and any extra ones. */
    List<String> jvmFlags(String heap) {
        List<String> flags = new ArrayList<>(List.of("-Xms" + heap, "-Xmx" + heap, "-Djava.net.preferIPv4Stack=true"));
        flags.addAll(extraJvmArgs);
        return flags;
    }

    /** The extra node properties, for the notes. @return the arguments */
    List<String> extraNodeArgs() {
        return extraNodeArgs;
    }

    /** The {@code sharding.*} arguments that put a node on its own cluster and ports. */
    static List<String> clusterArgs(String cluster, int port, List<Integer> ports) {
        StringBuilder hosts = new StringBuilder();
        for (int p : ports) {
            hosts.append(hosts.length() == 0 ? "" : ",")
                    .append("127.0.0.1[")
                    .append(p)
                    .append(']');
        }
        return List.of(
                "--sharding.cluster-name=" + cluster,
                "--sharding.jgroups.bind-port=" + port,
                "--sharding.jgroups.initial-hosts=" + hosts);
    }

    static String newClusterName() {
        return "bench-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }
}
