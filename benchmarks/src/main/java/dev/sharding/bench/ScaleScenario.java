package dev.sharding.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * W8, scale-out: how failover, rebalance and idle costs grow with the number of nodes. One run per cluster size N
 * ({@code --w8-nodes=3,6,12,24}), each printing one JSON line whose figures carry N, so that their growth shows.
 *
 * <p>One run, all in one cluster of node JVMs ({@code -Xms/-Xmx} of {@code --w8-heap}, default 256m), node names
 * {@code n01}, {@code n02}, ... in order of start. Before each step the measuring node waits until the cluster is
 * quiet: its view has lasted {@code split-brain.stable-after} (so that a failure is judged against it), no handoff is
 * under way and the shards per member have not changed for 3 s.
 *
 * <ol>
 *   <li><b>Start</b>: n01 first (the oldest member, so normally the coordinator), then n02 (the measuring node, which
 *       sends every ask and times every step), then the others two at a time; every node hosts the entity type {@code
 *       tally} ({@code dev.sharding.scale.Tally}: {@code Add}/{@code Get}/{@code Total} like W1-W7's counter, but its
 *       total and count are a durable {@code EntityState} in the starter's default store, the embedded H2 database)
 *       with {@code --w8-shards} shards (default 1,000). n02 seeds {@code --w8-entities} entities (default 100,000)
 *       with one acknowledged add each, then times one {@code Get} of every entity with nothing failing ({@code
 *       seeded.read_sweep_s}: the floor under every step's time, as it grows with the entities and not with N).
 *   <li><b>Idle</b> (N nodes): a window of {@code --w8-idle-s} seconds (default 20) with no load: per node the CPU
 *       seconds it used ({@code /proc/<pid>/stat} utime + stime, through {@code ProcessHandle}), the JGroups messages
 *       and bytes its transport sent and received (the transport's own counts, {@code TP.getMessageStats()}, turned on
 *       for W8's nodes) and its heap used at the end; then its heap used after full collections. Figures: {@code
 *       idle_cpu_pct_max} and {@code _mean} (percent of one core), {@code idle_msgs_sent_per_s_mean}, {@code
 *       idle_bytes_sent_per_s_mean}, {@code heap_used_mb_max} and {@code heap_after_gc_mb_max}; {@code idle} has
 *       every node's figures.
 *   <li><b>Join</b> (N to N + 1): the new node starts with its join held back (as W6's C); the clock starts when n02
 *       is ready to time it, and n02 polls the cluster state every 100 ms. {@code join_fair_share_s}: until the new
 *       node hosts its fair share, {@code ceil(allocated / (N+1)) - 1} of the allocated shards (the default strategy rebalances no
 *       further); {@code join_all_answered_s}: until afterwards every entity answered a {@code Get} (1 s timeout,
 *       silent ones asked again).
 *   <li><b>Kill 3</b> (N + 1 to N - 2, when N - 2 of N + 1 are a majority, so N at least 6: with fewer, the default
 *       split-brain strategy, keep-majority, stops the survivors by design): n02 kills the coordinator and the two
 *       youngest other nodes with SIGKILL at once (from its own JVM, as W7); {@code kill3_s}: until every entity
 *       answered a {@code Get} (500 ms timeout, silent ones asked again, 2,000 asks in flight at most), as W7. {@code
 *       coordinator_rebuild_s}: from the new coordinator's log line "Coordinator activated on ..." to its
 *       "Coordinator on ... is ready: ..." (as the launcher read them), the time it took to rebuild its shard table
 *       from the members' reports; {@code kill3.seconds_to_new_coordinator} and, when n02 is the new coordinator,
 *       {@code kill3.seconds_to_coordinator_ready} ({@code ShardingNode.isCoordinatorReady()}), from the kill, polled
 *       every 5 ms. With the embedded H2 store, {@code kill3.store_server} is the node that served it (the live node
 *       that logged last that it serves it) and {@code kill3.store_server_killed} whether it was among the killed:
 *       then the survivors wait for another node to take the database over. Then new nodes join until there are N
 *       again (not timed).
 *   <li><b>Kill 1</b> (N to N - 1; N + 1 to N when kill 3 did not run): n02 kills the youngest node that is neither
 *       the coordinator nor itself; {@code kill1_s} as for kill 3.
 *   <li><b>Leave 3</b> (N at least 4; new nodes join first until there are N again, not timed): the three members
 *       other than n02 hosting the most shards are told at once to stop gracefully (their Spring context is closed:
 *       each hands off its shards and leaves); {@code leave3_s} as for kill 3, from when n02 was ready to time it
 *       (it then prints a line on which the launcher sends the three their command).
 * </ol>
 *
 * <p>After the join and each kill and leave, and its timed read sweep (whose answers below the acknowledged adds are
 * {@code lost_seen_by_reads}), n02 asks every entity to add 1 until each acknowledged (not timed: {@code
 * add_sweep_s}), then reads every entity's count again and compares it with the adds it saw acknowledged: {@code
 * *_lost} is the sum of the shortfalls (acknowledged adds lost), {@code applied_twice} the excess. Every add is an ask with a message id, so one asked again after a timeout applies once. Each step's object
 * in the line ({@code join}, {@code kill3}, {@code kill1}, {@code leave3}) also has {@code members_before}, the shards
 * per node before and after, and the probe's asks and failures.
 *
 * <p>The store: by default the starter's, the embedded H2 file database in the run's folder, which the first node
 * that opens it (n01) serves to the others and, once that node is killed, another node takes over; with {@code
 * --w8-store=postgresql} a PostgreSQL server the launcher starts for the run (as D1's, fsync on), which no kill
 * touches.
 *
 * <p>Nodes started: N + 4 at most, N + 1 alive at once; memory: that many JVMs of {@code --w8-heap} heap each (about
 * 250-350 MB resident each at 256m) and the launcher.
 */
final class ScaleScenario {

    /**
     * W8's options.
     *
     * @param nodes the cluster sizes, one run each
     * @param entities entities seeded
     * @param shards shards of the entity type
     * @param heap heap of every node JVM
     * @param idleSeconds the idle window
     * @param store h2 (the starter's embedded database) or postgresql (a server the launcher starts)
     */
    record Options(List<Integer> nodes, int entities, int shards, String heap, int idleSeconds, String store) {

        static Options defaults() {
            return new Options(List.of(3, 6, 12, 24), 100_000, 1_000, "256m", 20, "h2");
        }
    }

    private static final Duration START = Duration.ofSeconds(300);

    /** What the starter logs on the node that serves the embedded H2 database to the others. */
    static final String STORE_SERVER_LINE = "this node serves it to the others";

    static final Duration STEP = Duration.ofSeconds(1200);

    private final Launcher launcher;

    private final String tag;

    private final int n;

    private final Options o;

    private final String cluster = Launcher.newClusterName();

    private final List<Integer> ports;

    /** The properties that point every node at the PostgreSQL server of {@code --w8-store=postgresql}. */
    private final List<String> storeArgs = new ArrayList<>();

    /** Live nodes in order of start. */
    private final List<NodeProcess> nodes = new ArrayList<>();

    private final Map<NodeProcess, String> names = new LinkedHashMap<>();

    /** Per node, its log line saying that it serves the embedded H2 database to the others (h2 only). */
    private final Map<NodeProcess, NodeProcess.LineWatch> storeServers = new LinkedHashMap<>();

    private int started;

    /** n02, the node that asks and times. */
    private NodeProcess measurer;

    private ScaleScenario(Launcher launcher, String tag, int n, Options o) {
        this.launcher = launcher;
        this.tag = tag;
        this.n = n;
        this.o = o;
        this.ports = Ports.pick(n + 4);
    }

    /** Runs W8 for {@code n} nodes; the figures and, per step, what the measuring node reported. */
    static ObjectNode run(Launcher launcher, String tag, int n, Options o) throws Exception {
        return new ScaleScenario(launcher, tag, n, o).run();
    }

    private ObjectNode run() throws Exception {
        ObjectNode r = Workloads.JSON.createObjectNode();
        r.put("n", o.entities());
        r.put("shards", o.shards());
        r.put("store", o.store());
        if (o.store().equals("postgresql")) {
            EmbeddedPostgres pg = launcher.startPostgres(tag, Map.of());
            storeArgs.add("--spring.datasource.url=jdbc:postgresql://localhost:" + pg.getPort() + "/postgres");
            storeArgs.add("--spring.datasource.username=postgres");
            storeArgs.add("--spring.datasource.password=");
            storeArgs.add("--sharding.store.initialize-schema=always");
        }
        long t0 = System.nanoTime();
        NodeProcess first = start(false);
        first.await("READY", START);
        measurer = start(false);
        measurer.await("READY", START);
        startMore(n - 2);
        members(n);
        r.put("start_s", seconds(System.nanoTime() - t0));
        measurer.send("W8-SEED " + o.entities());
        r.set("seeded", read(measurer.await("SEEDED", STEP)));
        settle();
        r.set("idle", ScaleIdle.measure(nodes, names, o.idleSeconds(), STEP));

        // join
        settle();
        NodeProcess joiner = start(true);
        joiner.await("WAITING-JOIN", START);
        int fair = (o.shards() + n) / (n + 1) - 1;
        measurer.send("W8-JOIN " + names.get(joiner) + " " + fair);
        measurer.await("W8-STARTED", STEP);
        joiner.send("JOIN");
        ObjectNode join = read(measurer.await("RESULT", STEP));
        verify(join);
        r.set("join", join);

        // kill 3, the coordinator among them, of the N + 1 nodes, when the other N - 2 are a majority
        if (n - 2 > (n + 1) / 2.0) {
            r.set("kill3", kill3());
            startMore(n - nodes.size());
            members(n);
        } else {
            r.put(
                    "kill3",
                    "not run: " + (n - 2) + " of " + (n + 1) + " nodes are no majority, and the default"
                            + " split-brain strategy (keep-majority) stops them by design");
        }

        // kill 1, not the coordinator
        ObjectNode settled = settle();
        String coordinator = settled.path("coordinator").asString("");
        NodeProcess victim = youngestFirst().stream()
                .filter(p -> p != measurer && !names.get(p).equals(coordinator))
                .findFirst()
                .orElseThrow();
        r.set("kill1", disrupt(List.of(victim), true));

        // leave 3: back to N nodes first
        if (n >= 4) {
            startMore(n - nodes.size());
            members(n);
            JsonNode shards = settle().get("shards_per_node");
            List<NodeProcess> leaving = nodes.stream()
                    .filter(p -> p != measurer)
                    .sorted(Comparator.comparingInt((NodeProcess p) ->
                                    -shards.path(names.get(p)).asInt(0))
                            .thenComparing(names::get))
                    .limit(3)
                    .toList();
            r.set("leave3", disrupt(leaving, false));
        } else {
            r.put("leave3", "not run: it needs at least 4 nodes");
        }
        ScaleReport.figures(r);
        return r;
    }

    /** SIGKILL of the coordinator and of the two youngest nodes other than the measuring one, at once. */
    private ObjectNode kill3() throws Exception {
        String coordinator = settle().path("coordinator").asString("");
        NodeProcess c = nodes.stream()
                .filter(p -> names.get(p).equals(coordinator))
                .findFirst()
                .orElse(null);
        if (c == null || c == measurer) {
            ObjectNode skipped = Workloads.JSON.createObjectNode();
            skipped.put("error", "not run: the coordinator is " + coordinator + ", the measuring node or unknown");
            return skipped;
        }
        List<NodeProcess> victims = new ArrayList<>(List.of(c));
        youngestFirst().stream().filter(p -> p != measurer && p != c).limit(2).forEach(victims::add);
        List<NodeProcess.LineWatch[]> watches = new ArrayList<>();
        for (NodeProcess p : nodes) {
            if (!victims.contains(p)) {
                watches.add(new NodeProcess.LineWatch[] {p.watch("Coordinator activated on "), p.watch(" is ready: ")});
            }
        }
        // the embedded database's server: the live node that said last that it serves it (one at a time)
        NodeProcess server = nodes.stream()
                .filter(p -> storeServers.get(p).nanos() > 0)
                .max(Comparator.comparingLong(p -> storeServers.get(p).nanos()))
                .orElse(null);
        ObjectNode kill3 = disrupt(victims, true);
        if (o.store().equals("h2")) {
            kill3.put("store_server", server == null ? null : names.get(server));
            kill3.put("store_server_killed", server != null && victims.contains(server));
        }
        for (NodeProcess.LineWatch[] w : watches) {
            if (w[0].nanos() > 0 && w[1].nanos() > 0) {
                kill3.put("coordinator_rebuild_s", seconds(w[1].nanos() - w[0].nanos()));
                kill3.put("coordinator_ready_line", w[1].line());
            }
        }
        return kill3;
    }

    private List<NodeProcess> youngestFirst() {
        List<NodeProcess> l = new ArrayList<>(nodes);
        java.util.Collections.reverse(l);
        return l;
    }

    /** Waits on the measuring node until the cluster is quiet; what it saw then. */
    private ObjectNode settle() throws Exception {
        measurer.send("W8-SETTLE");
        return read(measurer.await("SETTLED", STEP));
    }

    /** Starts the next node: {@code held} to have it wait for {@code JOIN}. */
    private NodeProcess start(boolean held) throws Exception {
        String name = String.format("n%02d", ++started);
        List<String> args = new ArrayList<>(Launcher.clusterArgs(cluster, ports.get(started - 1), ports));
        args.add("--sharding.node-name=" + name);
        args.add("--bench.scale=true");
        args.add("--sharding.entities.tally.number-of-shards=" + o.shards());
        args.addAll(storeArgs);
        if (held) {
            args.add("--bench.join-on-command=true");
        }
        NodeProcess p = launcher.start(tag, name, o.heap(), args);
        storeServers.put(p, p.watch(STORE_SERVER_LINE));
        nodes.add(p);
        names.put(p, name);
        return p;
    }

    /** Starts {@code count} nodes, two at a time, each pair ready before the next starts. */
    private void startMore(int count) throws Exception {
        for (int done = 0; done < count; ) {
            List<NodeProcess> batch = new ArrayList<>();
            for (int k = 0; k < 2 && done < count; k++, done++) {
                batch.add(start(false));
            }
            for (NodeProcess p : batch) {
                p.await("READY", START);
            }
        }
    }

    /** Waits until every live node sees {@code count} members and is registered. */
    private void members(int count) throws Exception {
        for (NodeProcess p : nodes) {
            p.send("MEMBERS " + count);
        }
        for (NodeProcess p : nodes) {
            p.await("MEMBERS", START);
        }
    }

    /** A kill ({@code kill}) or graceful leave of {@code those}, timed by the measuring node, then the count check. */
    private ObjectNode disrupt(List<NodeProcess> those, boolean kill) throws Exception {
        List<String> who = those.stream().map(names::get).toList();
        for (NodeProcess p : those) {
            p.cpuSeconds(); // the last reading before it goes, for the run's CPU account
        }
        List<String> pids = those.stream().map(p -> Long.toString(p.pid())).toList();
        measurer.send(
                "W8-DISRUPT " + (kill ? "KILL " : "LEAVE ") + String.join(",", who) + " " + String.join(",", pids));
        if (!kill) {
            measurer.await("W8-STARTED", STEP);
            for (NodeProcess p : those) {
                p.send("LEAVE");
            }
        }
        ObjectNode result = read(measurer.await("RESULT", STEP));
        nodes.removeAll(those);
        verify(result);
        return result;
    }

    private void verify(ObjectNode into) throws Exception {
        measurer.send("W8-VERIFY");
        into.setAll(read(measurer.await("VERIFIED", STEP)));
    }

    private static ObjectNode read(String json) {
        return (ObjectNode) Workloads.JSON.readTree(json);
    }

    private static double seconds(long nanos) {
        return Workloads.round3(Workloads.seconds(nanos));
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
