package dev.sharding.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>Options: {@code --workloads=W1,W3} (default all), {@code --runs=N} (default 1; with more the line is the median
 * of the runs, see {@link Summary}), {@code --logs=DIR} (node logs and raw.jsonl; default {@code bench-logs} beside
 * the jar), {@code --jfr=DIR} (a JFR recording of every node JVM), {@code --jvm-arg=FLAG} (repeatable: one more flag
 * for every node JVM), {@code --node-arg=--name=value} (repeatable: one more property for every node, named in the
 * line's {@code notes}). {@code --jfr-summary=FILE.jfr [--top=N]} summarises a recording instead ({@link JfrSummary}).
 */
final class Launcher {

    static final List<String> ALL = List.of("W1", "W2", "W3", "W4", "W5", "W6", "W7");

    static final String SYSTEM = "sharding-jgroups";

    private final Path logs;

    private final Path jfr;

    private final List<String> extraJvmArgs;

    private final List<String> extraNodeArgs = new ArrayList<>();

    private final List<NodeProcess> live = new CopyOnWriteArrayList<>();

    private final List<NodeProcess> started = new ArrayList<>();

    private Launcher(Path logs, Path jfr, List<String> extraJvmArgs) {
        this.logs = logs;
        this.jfr = jfr;
        this.extraJvmArgs = extraJvmArgs;
    }

    static int run(String[] args) throws Exception {
        List<String> workloads = ALL;
        int runs = 1;
        Path logs = defaultLogDir();
        Path jfr = null;
        List<String> jvmArgs = new ArrayList<>();
        List<String> nodeArgs = new ArrayList<>();
        Path summary = null;
        int top = 25;
        for (String arg : args) {
            String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : "";
            if (arg.startsWith("--workloads=")) {
                workloads = Arrays.stream(value.split(",")).map(String::trim).map(String::toUpperCase).toList();
            } else if (arg.startsWith("--runs=")) {
                runs = Integer.parseInt(value);
            } else if (arg.startsWith("--logs=")) {
                logs = Path.of(value);
            } else if (arg.startsWith("--jfr=")) {
                jfr = Path.of(value).toAbsolutePath();
            } else if (arg.startsWith("--jvm-arg=")) {
                jvmArgs.add(value);
            } else if (arg.startsWith("--node-arg=")) {
                nodeArgs.add(value);
            } else if (arg.startsWith("--jfr-summary=")) {
                summary = Path.of(value);
            } else if (arg.startsWith("--top=")) {
                top = Integer.parseInt(value);
            } else {
                System.err.println("Unknown option " + arg + "; options: --workloads=W1,..,W7 --runs=N --logs=DIR"
                        + " --jfr=DIR --jvm-arg=FLAG --node-arg=--property=value, or --jfr-summary=FILE.jfr [--top=N]");
                return 2;
            }
        }
        if (summary != null) {
            return JfrSummary.run(summary, top, System.out);
        }
        for (String w : workloads) {
            if (!ALL.contains(w)) {
                System.err.println("Unknown workload " + w + "; known: " + ALL);
                return 2;
            }
        }
        Files.createDirectories(logs);
        if (jfr != null) {
            Files.createDirectories(jfr);
        }
        Launcher launcher = new Launcher(logs.toAbsolutePath(), jfr, jvmArgs);
        launcher.extraNodeArgs.addAll(nodeArgs);
        Thread hook = new Thread(launcher::killAll, "bench-kill-nodes");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean allOk = true;
        try {
            for (String w : workloads) {
                List<ObjectNode> done = new ArrayList<>();
                for (int r = 1; r <= runs; r++) {
                    ObjectNode line = launcher.runOnce(w, r);
                    done.add(line);
                    allOk &= !line.has("error");
                    Files.writeString(logs.resolve("raw.jsonl"), line + System.lineSeparator(), StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    if (runs > 1) {
                        System.err.println("run " + r + ": " + line);
                    }
                }
                System.out.println(runs == 1 ? done.get(0) : Summary.of(w, done));
                System.out.flush();
            }
        } finally {
            launcher.killAll();
        }
        return allOk ? 0 : 1;
    }

    private static Path defaultLogDir() {
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
    }

    /** One run of one workload; its JSON line, with {@code error} when it failed. */
    private ObjectNode runOnce(String w, int run) {
        String tag = w + "-" + Instant.now().toString().replace(':', '-') + "-run" + run;
        System.err.println("[bench] " + w + " run " + run + ": starting nodes (logs " + logs + "/" + tag + "-*.log)");
        String load = MachineLoad.loadAverage();
        double busy0 = MachineLoad.busySeconds();
        double self0 = MachineLoad.cpuSeconds(ProcessHandle.current());
        long wall0 = System.nanoTime();
        started.clear();
        ObjectNode result;
        try {
            result = Scenarios.run(this, w, tag);
        } catch (Exception e) {
            result = Workloads.JSON.createObjectNode();
            result.put("error", e.getMessage() == null ? e.toString() : e.getMessage());
        } finally {
            for (NodeProcess p : started) {
                p.cpuSeconds();
            }
            for (NodeProcess p : started) {
                p.close();
                live.remove(p);
            }
        }
        double mine = MachineLoad.cpuSeconds(ProcessHandle.current()) - self0;
        for (NodeProcess p : started) {
            mine += p.cpuSeconds();
        }
        double busy = MachineLoad.busySeconds() - busy0;
        ObjectNode machine = Workloads.JSON.createObjectNode();
        machine.put("loadavg_at_start", load);
        machine.put("run_wall_s", Workloads.round3(Workloads.seconds(System.nanoTime() - wall0)));
        machine.put("machine_busy_cpu_s", Math.round(busy * 100) / 100.0);
        machine.put("bench_cpu_s", Math.round(mine * 100) / 100.0);
        machine.put("other_cpu_s", Math.round((busy - mine) * 100) / 100.0);
        ObjectNode line = Scenarios.describe(this, w, result);
        line.put("run", run);
        line.set("machine", machine);
        System.err.println("[bench] " + w + " run " + run + " done in " + machine.get("run_wall_s") + " s"
                + (line.has("error") ? ": " + line.get("error") : ""));
        return line;
    }

    /** Starts one node JVM of the current run. */
    NodeProcess start(String tag, String name, String heap, List<String> appArgs) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags(heap));
        if (jfr != null) {
            // exact lines for inlined frames: without it samples are attributed to the nearest safepoint's frame
            cmd.add("-XX:+UnlockDiagnosticVMOptions");
            cmd.add("-XX:+DebugNonSafepoints");
            cmd.add("-XX:StartFlightRecording=settings=profile,filename=" + jfr.resolve(tag + "-" + name + ".jfr"));
        }
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
        cmd.add("--sharding.store.embedded-path=" + logs.resolve(tag + "-store").resolve("sharding"));
        cmd.addAll(extraNodeArgs);
        NodeProcess p = new NodeProcess(name, cmd, logs.resolve(tag + "-" + name + ".log"));
        started.add(p);
        live.add(p);
        return p;
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
            hosts.append(hosts.length() == 0 ? "" : ",").append("127.0.0.1[").append(p).append(']');
        }
        return List.of("--sharding.cluster-name=" + cluster, "--sharding.jgroups.bind-port=" + port,
                "--sharding.jgroups.initial-hosts=" + hosts);
    }

    static String newClusterName() {
        return "bench-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }

    static Map<String, String> names() {
        return Map.of("W1", "local-tell", "W2", "remote-tell", "W3", "remote-ask-latency", "W4",
                "remote-ask-throughput", "W5", "activation", "W6", "rebalance", "W7", "failover");
    }
}
