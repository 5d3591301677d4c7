package dev.sharding.bench;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The launcher's command line.
 *
 * <p>Options: {@code --workloads=W1,W3} (default all), {@code --runs=N} (default 1; with more the line is the median
 * of the runs, see {@link Summary}), {@code --logs=DIR} (node logs and raw.jsonl; default {@code bench-logs} beside
 * the jar), {@code --jfr=DIR} (a JFR recording of every node JVM), {@code --jvm-arg=FLAG} (repeatable: one more flag
 * for every node JVM), {@code --node-arg=--name=value} (repeatable: one more property for every node, named in the
 * line's {@code notes}), {@code --secret} (every node gets the same {@code sharding.jgroups.secret}, so all cluster
 * traffic is sealed: to measure what the secret costs), {@code --no-meters} (no Micrometer meters of the node: they are
 * on by default, in a Prometheus registry, as in an application with the actuator and Prometheus; to measure what
 * they cost). {@code --jfr-summary=FILE.jfr [--top=N] [--from=INSTANT --to=INSTANT]} summarises a recording, or the part
 * of it between two instants (an H report's phase {@code from} and {@code to}), instead ({@link JfrSummary}).
 *
 * <p>D1, the deposit workload ({@link DepositScenario}), D0, its baseline without sharding ({@link PlainDeposits}),
 * D2 and D0-READS, the same two with 90% reads, and D3, D1 with the sample app's event-sourced account,
 * run only when named in {@code --workloads}; their options:
 * {@code --store=h2|postgresql|h2,postgresql} (default h2; one line per store), {@code --d1-callers=64},
 * {@code --d1-accounts=10000}, {@code --d1-warmup-s=60}, {@code --d1-measure-s=30} and {@code --pg-conf=name=value}
 * (repeatable: a PostgreSQL setting for the server the launcher starts).
 *
 * <p>E1, the recovery of an event-sourced entity of 10,000 events with and without snapshots ({@link RecoveryScenario},
 * in the launcher's JVM), runs only when named, once per {@code --store}.
 *
 * <p>W8, scale-out ({@link ScaleScenario}), runs only when named, once per number of nodes; its options:
 * {@code --w8-nodes=3,6,12,24}, {@code --w8-entities=100000}, {@code --w8-shards=1000}, {@code --w8-heap=256m} and
 * {@code --w8-idle-s=20} and {@code --w8-store=h2|postgresql} (default h2, the starter's embedded database).
 *
 * <p>W9, density ({@link DensityScenario}), runs only when named; its options: {@code --w9-entities=10000000} and
 * {@code --w9-heap=4g} (the hosting node's heap; the node that takes its shards over has 1g), so that it can be run
 * small ({@code --w9-entities=200000 --w9-heap=1g}).
 *
 * <p>W10, sample-kill ({@link KillScenario}), runs only when named; its options: {@code --w10-nodes=12},
 * {@code --w10-kill=3} (killed at once, the coordinator and n1 among them), {@code --w10-accounts=1000},
 * {@code --w10-heap=256m}, {@code --w10-readers=64} (reads in flight after the kill), {@code --w10-read-before=false} (read every account once before the kill too), {@code --w10-warm-s=0} (read every account pass after pass for that long first, to warm the JVMs) and {@code --sample-jar=PATH}.
 *
 * <p>H1 (the sample app over HTTP), H0 (its baseline, a plain Spring Boot service), H2-READS and H0-READS (the same
 * with 90% reads), see {@link HttpScenario}, run only when named; their options: {@code --h-store=h2|postgresql}
 * (default h2; one line per store), {@code --h-connections=21} (per node), {@code --h-accounts=10000},
 * {@code --h-phase-s=20} (each of cold, warming, warm), {@code --h-warmup-s=0} (load on other accounts before the
 * phases, so that the JVMs have compiled the request path and only the accounts are cold), {@code --h-heap=384m},
 * {@code --sample-jar=PATH} and {@code --baseline-jar=PATH} (default: the jars the build makes beside this one), and
 * {@code --pg-conf}.
 *
 * @param workloads the workloads, in order
 * @param runs runs of each
 * @param logs where node logs and raw.jsonl go
 * @param jfr where JFR recordings go, or null for none
 * @param jvmArgs more flags for every node JVM
 * @param nodeArgs more properties for every node
 * @param summary a recording to summarise instead of running, or null
 * @param top how many lines of the summary
 * @param from the summary's first instant (a phase's {@code from} in an H report), or null for the start
 * @param to the summary's last instant, or null for the end
 * @param stores D1's stores
 * @param deposit D1's options
 * @param scale W8's options
 * @param http the H workloads' options
 * @param density W9's options
 * @param kill W10's options
 */
record LaunchOptions(
        List<String> workloads,
        int runs,
        Path logs,
        @Nullable Path jfr,
        List<String> jvmArgs,
        List<String> nodeArgs,
        @Nullable Path summary,
        int top,
        @Nullable Instant from,
        @Nullable Instant to,
        List<String> stores,
        DepositScenario.Options deposit,
        ScaleScenario.Options scale,
        HttpScenario.Options http,
        DensityScenario.Options density,
        KillScenario.Options kill) {

    /** The auto-configuration {@code --no-meters} leaves out. */
    static final String NO_METERS = "dev.sharding.autoconfigure.metrics.ShardingMetricsAutoConfiguration";

    /** Reads the options; null (after saying why on standard error) when they are wrong. */
    static @Nullable LaunchOptions parse(String[] args) {

        List<String> workloads = Launcher.ALL;
        int runs = 1;
        Path logs = Launcher.defaultLogDir();
        Path jfr = null;
        List<String> jvmArgs = new ArrayList<>();
        List<String> nodeArgs = new ArrayList<>();
        Path summary = null;
        int top = 25;
        Instant from = null;
        Instant to = null;
        List<String> stores = List.of("h2");
        DepositScenario.Options defaults = DepositScenario.Options.defaults();
        int callers = defaults.callers();
        int accounts = defaults.accounts();
        int warmup = defaults.warmupSeconds();
        int measure = defaults.measureSeconds();
        Map<String, String> pgConf = new LinkedHashMap<>();
        ScaleScenario.Options w8 = ScaleScenario.Options.defaults();
        List<Integer> w8Nodes = w8.nodes();
        int w8Entities = w8.entities();
        int w8Shards = w8.shards();
        String w8Heap = w8.heap();
        int w8Idle = w8.idleSeconds();
        String w8Store = w8.store();
        int w9Entities = DensityScenario.Options.defaults().entities();
        String w9Heap = DensityScenario.Options.defaults().heap();
        KillScenario.Options w10 = KillScenario.Options.defaults();
        int w10Nodes = w10.nodes();
        int w10Kill = w10.kill();
        int w10Accounts = w10.accounts();
        String w10Heap = w10.heap();
        int w10Readers = w10.readers();
        boolean w10ReadBefore = w10.readBefore();
        int w10WarmS = w10.warmSeconds();
        HttpScenario.Options h = HttpScenario.Options.defaults();
        List<String> hStores = h.stores();
        int hConnections = h.connectionsPerNode();
        int hAccounts = h.accounts();
        int hPhase = h.phaseSeconds();
        int hWarmup = h.warmupSeconds();
        String hHeap = h.heap();
        Path sampleJar = h.sampleJar();
        Path baselineJar = h.baselineJar();
        for (String arg : args) {
            String value = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : "";
            if (arg.startsWith("--workloads=")) {
                workloads = Arrays.stream(value.split(","))
                        .map(String::trim)
                        .map(String::toUpperCase)
                        .toList();
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
            } else if (arg.equals("--no-meters")) {
                nodeArgs.add("--spring.autoconfigure.exclude=" + NO_METERS);
            } else if (arg.equals("--secret")) {
                nodeArgs.add("--sharding.jgroups.secret=" + Launcher.BENCH_SECRET);
            } else if (arg.startsWith("--jfr-summary=")) {
                summary = Path.of(value);
            } else if (arg.startsWith("--top=")) {
                top = Integer.parseInt(value);
            } else if (arg.startsWith("--from=")) {
                from = Instant.parse(value);
            } else if (arg.startsWith("--to=")) {
                to = Instant.parse(value);
            } else if (arg.startsWith("--store=")) {
                stores = Arrays.stream(value.split(","))
                        .map(String::trim)
                        .map(String::toLowerCase)
                        .toList();
            } else if (arg.startsWith("--d1-callers=")) {
                callers = Integer.parseInt(value);
            } else if (arg.startsWith("--d1-accounts=")) {
                accounts = Integer.parseInt(value);
            } else if (arg.startsWith("--d1-warmup-s=")) {
                warmup = Integer.parseInt(value);
            } else if (arg.startsWith("--d1-measure-s=")) {
                measure = Integer.parseInt(value);
            } else if (arg.startsWith("--w8-nodes=")) {
                w8Nodes = Arrays.stream(value.split(","))
                        .map(String::trim)
                        .map(Integer::valueOf)
                        .toList();
            } else if (arg.startsWith("--w8-entities=")) {
                w8Entities = Integer.parseInt(value);
            } else if (arg.startsWith("--w8-shards=")) {
                w8Shards = Integer.parseInt(value);
            } else if (arg.startsWith("--w8-heap=")) {
                w8Heap = value;
            } else if (arg.startsWith("--w8-idle-s=")) {
                w8Idle = Integer.parseInt(value);
            } else if (arg.startsWith("--w8-store=")) {
                w8Store = value.trim().toLowerCase(java.util.Locale.ROOT);
            } else if (arg.startsWith("--w9-entities=")) {
                w9Entities = Integer.parseInt(value);
            } else if (arg.startsWith("--w9-heap=")) {
                w9Heap = value;
            } else if (arg.startsWith("--w10-nodes=")) {
                w10Nodes = Integer.parseInt(value);
            } else if (arg.startsWith("--w10-kill=")) {
                w10Kill = Integer.parseInt(value);
            } else if (arg.startsWith("--w10-accounts=")) {
                w10Accounts = Integer.parseInt(value);
            } else if (arg.startsWith("--w10-heap=")) {
                w10Heap = value;
            } else if (arg.startsWith("--w10-readers=")) {
                w10Readers = Integer.parseInt(value);
            } else if (arg.startsWith("--w10-read-before=")) {
                w10ReadBefore = Boolean.parseBoolean(value.trim());
            } else if (arg.startsWith("--w10-warm-s=")) {
                w10WarmS = Integer.parseInt(value);
            } else if (arg.startsWith("--h-store=")) {
                hStores = Arrays.stream(value.split(","))
                        .map(String::trim)
                        .map(x -> x.toLowerCase(java.util.Locale.ROOT))
                        .toList();
            } else if (arg.startsWith("--h-connections=")) {
                hConnections = Integer.parseInt(value);
            } else if (arg.startsWith("--h-accounts=")) {
                hAccounts = Integer.parseInt(value);
            } else if (arg.startsWith("--h-phase-s=")) {
                hPhase = Integer.parseInt(value);
            } else if (arg.startsWith("--h-warmup-s=")) {
                hWarmup = Integer.parseInt(value);
            } else if (arg.startsWith("--h-heap=")) {
                hHeap = value;
            } else if (arg.startsWith("--sample-jar=")) {
                sampleJar = Path.of(value).toAbsolutePath();
            } else if (arg.startsWith("--baseline-jar=")) {
                baselineJar = Path.of(value).toAbsolutePath();
            } else if (arg.startsWith("--pg-conf=") && value.contains("=")) {
                pgConf.put(value.substring(0, value.indexOf('=')), value.substring(value.indexOf('=') + 1));
            } else {
                System.err.println("Unknown option " + arg
                        + "; options: --workloads=W1,..,W7,W6-ASKS,W7-HANG,W8,W9,W10,D0,D1,D2,D0-READS,D3,E1"
                        + ",H1,H0,H2-READS,H0-READS --runs=N --logs=DIR --jfr=DIR --jvm-arg=FLAG --node-arg=--property=value --secret --no-meters, for D0, D1, D2, D0-READS, D3, E1 --store=h2|postgresql"
                        + " --d1-callers=N --d1-accounts=N --d1-warmup-s=S --d1-measure-s=S --pg-conf=name=value,"
                        + " for W8 --w8-nodes=3,6,12,24 --w8-entities=N --w8-shards=N --w8-heap=SIZE --w8-idle-s=S --w8-store=h2|postgresql,"
                        + " for W9 --w9-entities=N --w9-heap=SIZE,"
                        + " for W10 --w10-nodes=N --w10-kill=K --w10-accounts=N --w10-heap=SIZE --w10-readers=N --w10-read-before=true --w10-warm-s=S --sample-jar=PATH,"
                        + " for H0, H1, H2-READS, H0-READS --h-store=h2|postgresql --h-connections=N --h-accounts=N"
                        + " --h-phase-s=S --h-warmup-s=S --h-heap=SIZE --sample-jar=PATH --baseline-jar=PATH,"
                        + " or --jfr-summary=FILE.jfr [--top=N] [--from=INSTANT --to=INSTANT]");
                return null;
            }
        }
        DepositScenario.Options d = new DepositScenario.Options(callers, accounts, warmup, measure, pgConf);
        if (callers < 3 || accounts < 1 || warmup < 5 || measure < 1) {
            System.err.println("D0 and D1 need at least 3 callers (one per node), 1 account, 5 s of warm-up and 1 s"
                    + " measured");
            return null;
        }
        if (w8Nodes.isEmpty()
                || w8Nodes.stream().anyMatch(k -> k < 2)
                || w8Entities < 1
                || w8Shards < 1
                || w8Idle < 1
                || !w8Heap.matches("[0-9]+[kmgKMG]")
                || !DepositScenario.STORES.contains(w8Store)) {
            System.err.println("W8 needs at least 2 nodes per run (a coordinator and a measuring node), 1 entity,"
                    + " 1 shard, an idle window of at least 1 s, a heap such as 256m and a store among "
                    + DepositScenario.STORES);
            return null;
        }
        KillScenario.Options kill =
                new KillScenario.Options(w10Nodes, w10Kill, w10Accounts, w10Heap, w10Readers, w10ReadBefore, w10WarmS);
        if (kill.problem() != null) {
            System.err.println(kill.problem());
            return null;
        }
        if (w9Entities < 1 || !w9Heap.matches("[0-9]+[kmgKMG]")) {
            System.err.println("W9 needs at least 1 entity and a heap such as 4g");
            return null;
        }
        for (String st : stores) {
            if (!DepositScenario.STORES.contains(st)) {
                System.err.println("Unknown store " + st + "; known: " + DepositScenario.STORES);
                return null;
            }
        }
        for (String w : workloads) {
            if (!Launcher.ALL.contains(w) && !Launcher.EXTRA.contains(w)) {
                System.err.println("Unknown workload " + w + "; known: " + Launcher.ALL + " and " + Launcher.EXTRA);
                return null;
            }
        }
        boolean postgresWorkloads =
                workloads.stream().anyMatch(w -> Scenarios.DEPOSITS.contains(w) || HttpScenario.WORKLOADS.contains(w));
        if (workloads.stream().noneMatch(w -> Scenarios.DEPOSITS.contains(w) || w.equals("E1"))
                && Arrays.stream(args)
                        .anyMatch(a -> a.startsWith("--store=")
                                || a.startsWith("--d1-")
                                || a.startsWith("--pg-conf=") && !postgresWorkloads)) {
            System.err.println("[bench] --store and --d1-* apply to D0-D2 only, --pg-conf to them and the H workloads,"
                    + " none of which is among " + workloads);
        }
        HttpScenario.Options http = new HttpScenario.Options(
                hStores, hConnections, hAccounts, hPhase, hWarmup, hHeap, sampleJar, baselineJar);
        String httpProblem = http.problem();
        if (httpProblem != null) {
            System.err.println(httpProblem);
            return null;
        }
        ScaleScenario.Options scale = new ScaleScenario.Options(w8Nodes, w8Entities, w8Shards, w8Heap, w8Idle, w8Store);
        return new LaunchOptions(
                workloads,
                runs,
                logs,
                jfr,
                jvmArgs,
                nodeArgs,
                summary,
                top,
                from,
                to,
                stores,
                d,
                scale,
                http,
                new DensityScenario.Options(w9Entities, w9Heap),
                kill);
    }
}
