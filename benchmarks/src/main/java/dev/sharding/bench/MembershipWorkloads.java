package dev.sharding.bench;

import dev.sharding.ClusterState;
import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The workloads where membership changes, measured on node A (the oldest member, so the coordinator's home): W6, a
 * third node joins two that host 100 shards with 10,000 live entities; W7, one of three such nodes that is not the
 * coordinator is killed with SIGKILL. Both end when every entity answered an ask again.
 */
final class MembershipWorkloads {

    private static final String TYPE = "counter";

    private final ShardingNode node;

    private final AskSweep sweep;

    private final ShardRegion<Counter> region;

    MembershipWorkloads(ShardingNode node, AskSweep sweep, ShardRegion<Counter> region) {
        this.node = node;
        this.sweep = sweep;
        this.region = region;
    }

    /** Waits until this node sees {@code n} members and is registered with the coordinator. */
    void awaitMembers(int n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (node.members().size() < n || !node.isRegistered()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Only " + node.members().size() + " of " + n + " members after "
                        + timeout + ", registered: " + node.isRegistered());
            }
            Thread.sleep(20);
        }
    }

    /** Shards hosted per member name, for the members that answered. */
    Map<String, Integer> shardsPerNode() throws Exception {
        return shardsPerNode(snapshot(), TYPE);
    }

    private ClusterState snapshot() throws Exception {
        return node.admin().clusterState(Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
    }

    /**
     * Shards of one entity type per hosting member name, for the members that answered.
     *
     * @param state a snapshot of the cluster
     * @param type the entity type
     * @return member name to shard count, sorted by name
     */
    static Map<String, Integer> shardsPerNode(ClusterState state, String type) {
        Map<String, Integer> shards = new TreeMap<>();
        for (ClusterState.RegionState r : state.regions().getOrDefault(type, List.of())) {
            if (r.answered() && !r.proxyOnly()) {
                shards.put(r.member().name(), r.entitiesPerShard().size());
            }
        }
        return shards;
    }

    /** Live entities of every member that answered, from the same snapshot. */
    long liveEntities() throws Exception {
        ClusterState state = node.admin().clusterState(Duration.ofSeconds(10)).get(30, TimeUnit.SECONDS);
        long n = 0;
        for (ClusterState.RegionState r : state.regions().getOrDefault(TYPE, List.of())) {
            for (int count : r.entitiesPerShard().values()) {
                n += count;
            }
        }
        return n;
    }

    /**
     * Waits for {@code hosts} hosting regions, starts {@code entities} entities with one ask each, then warms the
     * ask path up for 5 s.
     */
    Map<String, Object> seed(int entities, int hosts) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (shardsPerNode().size() < hosts) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Only " + shardsPerNode().size() + " of " + hosts + " hosting regions answered");
            }
            Thread.sleep(100);
        }
        String[] ids = Workloads.ids("e-", entities);
        AskSweep.Outcome s = sweep.run(
                entities,
                i -> ids[i],
                (i, t) -> true,
                entities,
                Duration.ofSeconds(10),
                Duration.ofSeconds(120),
                Duration.ofSeconds(30),
                100);
        if (s.notDone() > 0) {
            throw new IllegalStateException("Seeding failed: " + s.notDone() + " entities never answered");
        }
        long start = System.nanoTime();
        int sweeps = 0;
        while (System.nanoTime() - start < Workloads.WARM_UP.toNanos()) {
            sweep.run(
                    entities,
                    i -> ids[i],
                    (i, t) -> true,
                    entities,
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(30),
                    0);
            sweeps++;
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("shards_per_node", shardsPerNode());
        r.put("warmup_sweeps", sweeps);
        return r;
    }

    /**
     * W6: the clock starts when this node prints {@code W6-STARTED} (the launcher then tells the new node to join)
     * and stops when the new member hosts at least 30 shards and afterwards every entity answered an ask. W6-ASKS
     * ({@code loadChains} > 0): the same with a steady ask load from this node from 2 s before the join until the
     * shards per member have not changed for 3 s after the clock stopped; every ask of it that failed is counted.
     */
    Map<String, Object> w6(int entities, int loadChains) throws Exception {
        String[] ids = Workloads.ids("e-", entities);
        Set<String> before = node.members().stream().map(Member::name).collect(Collectors.toSet());
        Map<String, Integer> shardsBefore = shardsPerNode();
        SteadyAsks load = null;
        if (loadChains > 0) {
            load = new SteadyAsks(region, ids);
            load.start(loadChains);
            Thread.sleep(2_000);
        }
        long t0 = System.nanoTime();
        NodeIo.emit("W6-STARTED", "");
        long deadline = t0 + Duration.ofSeconds(400).toNanos();
        long firstShard = -1;
        int onNew = 0;
        Map<String, Integer> seen = shardsBefore;
        while (onNew < 30) {
            if (System.nanoTime() > deadline) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("seconds", null);
                r.put("n", entities);
                r.put("error", "the new node hosted only " + onNew + " shards after 400 s");
                r.put("shards_per_node", seen);
                return r;
            }
            try {
                seen = shardsPerNode();
                onNew = seen.entrySet().stream()
                        .filter(e -> !before.contains(e.getKey()))
                        .mapToInt(Map.Entry::getValue)
                        .max()
                        .orElse(0);
            } catch (Exception e) {
                // a query may time out while shards move: poll again
            }
            if (onNew > 0 && firstShard < 0) {
                firstShard = System.nanoTime();
            }
            if (onNew < 30) {
                Thread.sleep(100);
            }
        }
        long t1 = System.nanoTime();
        AskSweep.Outcome s = sweep.run(
                entities,
                i -> ids[i],
                (i, t) -> true,
                entities,
                Duration.ofSeconds(1),
                Duration.ofSeconds(300),
                Duration.ofSeconds(300),
                0);
        long t2 = System.nanoTime();
        Map<String, Object> loadResult = null;
        Map<String, Integer> settled = null;
        if (load != null) {
            settled = awaitSettled(Duration.ofSeconds(3), Duration.ofSeconds(120));
            loadResult = load.stop(t0);
            loadResult.put("load_seconds_after_join", Workloads.round3(Workloads.seconds(System.nanoTime() - t0)));
            loadResult.put("load_chains", loadChains);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("seconds", s.notDone() > 0 ? null : Workloads.round3(Workloads.seconds(t2 - t0)));
        r.put("n", entities);
        if (s.notDone() > 0) {
            r.put("error", s.notDone() + " entities never answered");
        }
        r.put("seconds_to_first_shard", firstShard < 0 ? null : Workloads.round3(Workloads.seconds(firstShard - t0)));
        r.put("seconds_to_30_shards", Workloads.round3(Workloads.seconds(t1 - t0)));
        r.put("seconds_all_answered_after", Workloads.round3(Workloads.seconds(t2 - t1)));
        r.put("shards_before", shardsBefore);
        r.put("shards_at_30", seen);
        r.put("probe_asks", s.asks());
        r.put("probe_rounds", s.rounds());
        r.put("probe_failures", s.failures());
        if (loadResult != null) {
            r.putAll(loadResult);
            r.put("shards_settled", settled);
        }
        return r;
    }

    /** Waits until the shards per member have stayed the same for {@code quiet}; returns them. */
    private Map<String, Integer> awaitSettled(Duration quiet, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Integer> last = shardsPerNode();
        long since = System.nanoTime();
        while (System.nanoTime() - since < quiet.toNanos() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            Map<String, Integer> now;
            try {
                now = shardsPerNode();
            } catch (Exception e) {
                continue;
            }
            if (!now.equals(last)) {
                last = now;
                since = System.nanoTime();
            }
        }
        return last;
    }

    /**
     * W7: kills the node with the given process id (SIGKILL), which must not be the coordinator's, then asks every
     * entity (500 ms timeout) and asks again those that did not answer, until all answered. W7-HANG ({@code hang}):
     * stops the node with SIGSTOP instead, so that it hangs with its connections open.
     */
    Map<String, Object> w7(long victimPid, String victimName, int entities, boolean hang) throws Exception {
        String[] ids = Workloads.ids("e-", entities);
        Member coordinator = node.coordinator();
        if (coordinator == null || coordinator.name().equals(victimName)) {
            throw new IllegalStateException("The victim " + victimName + " is the coordinator (" + coordinator + ")");
        }
        ClusterState state = snapshot();
        Map<String, Integer> before = shardsPerNode(state, TYPE);
        int shards = before.values().stream().mapToInt(Integer::intValue).sum(); // every shard is hosted: seeded
        Set<Integer> victimShards = new HashSet<>();
        for (ClusterState.RegionState r : state.regions().getOrDefault(TYPE, List.of())) {
            if (r.member().name().equals(victimName)) {
                victimShards.addAll(r.entitiesPerShard().keySet());
            }
        }
        boolean[] onVictim = new boolean[entities];
        int others = 0;
        for (int i = 0; i < entities; i++) {
            onVictim[i] = victimShards.contains(EntityType.shardOf(ids[i], shards));
            others += onVictim[i] ? 0 : 1;
        }
        AtomicInteger othersLeft = new AtomicInteger(others);
        AtomicLong othersDone = new AtomicLong(-1);
        ProcessHandle victim =
                ProcessHandle.of(victimPid).orElseThrow(() -> new IllegalStateException("No process " + victimPid));
        AtomicLong viewChange = new AtomicLong(-1);
        Thread watcher = new Thread(
                () -> {
                    while (viewChange.get() < 0 && !Thread.currentThread().isInterrupted()) {
                        if (node.members().stream().noneMatch(m -> m.name().equals(victimName))) {
                            viewChange.set(System.nanoTime());
                        }
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "w7-view-watcher");
        watcher.setDaemon(true);

        long t0 = System.nanoTime();
        boolean killed = hang
                ? new ProcessBuilder("kill", "-STOP", Long.toString(victimPid))
                                .start()
                                .waitFor()
                        == 0
                : victim.destroyForcibly();
        watcher.start();
        AskSweep.Outcome s = sweep.run(
                entities,
                i -> ids[i],
                (i, t) -> {
                    if (!onVictim[i] && othersLeft.decrementAndGet() == 0) {
                        othersDone.set(System.nanoTime());
                    }
                    return true;
                },
                entities,
                Duration.ofMillis(500),
                Duration.ofSeconds(300),
                Duration.ofSeconds(300),
                0);
        long t1 = System.nanoTime();
        watcher.interrupt();
        Map<String, Object> r = new LinkedHashMap<>();
        boolean ok = killed && s.notDone() == 0;
        r.put("seconds", ok ? Workloads.round3(Workloads.seconds(t1 - t0)) : null);
        r.put("n", entities);
        if (!ok) {
            r.put("error", !killed ? "kill failed" : s.notDone() + " entities never answered within 300 s");
        }
        long od = othersDone.get();
        r.put("signal", hang ? "SIGSTOP" : "SIGKILL");
        r.put("seconds_other_entities", od < 0 ? null : Workloads.round3(Workloads.seconds(od - t0)));
        long vc = viewChange.get();
        r.put("seconds_to_view_change", vc < 0 ? null : Workloads.round3(Workloads.seconds(vc - t0)));
        r.put("coordinator", coordinator.name());
        r.put("victim", victimName);
        r.put("victim_shards", before.getOrDefault(victimName, 0));
        r.put("shards_before", before);
        r.put("shards_after", shardsPerNode());
        r.put("probe_asks", s.asks());
        r.put("probe_rounds", s.rounds());
        r.put("probe_failures", s.failures());
        return r;
    }
}
