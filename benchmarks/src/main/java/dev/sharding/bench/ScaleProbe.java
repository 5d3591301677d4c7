package dev.sharding.bench;

import dev.sharding.ClusterState;
import dev.sharding.Member;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.scale.Tally;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jgroups.JChannel;
import org.jgroups.protocols.MsgStats;
import org.jgroups.protocols.TP;
import org.jspecify.annotations.Nullable;

/**
 * The node side of W8 ({@link ScaleScenario}): on the measuring node, seeding the {@link Tally} entities, the join,
 * kill and leave steps and the count check; on every node, its JGroups traffic and heap at idle.
 *
 * <p>Every {@link Add} of W8 is an ask with a message id ({@code "e-" + i + "#" + k} for the k-th add to entity i), so
 * an add asked again after a timeout applies once; an entity's stored count must therefore equal the adds
 * acknowledged to it: fewer is an acknowledged add lost, more an add applied twice.
 */
final class ScaleProbe {

    static final String TYPE = "tally";

    private final ShardingNode node;

    private final ShardRegion<Tally> region;

    private final @Nullable JChannel channel;

    private String[] ids = new String[0];

    /** Adds acknowledged per entity; written by ask callbacks, read after the sweep's round ended. */
    private long[] acked = new long[0];

    ScaleProbe(ShardingNode node, ShardRegion<Tally> region, @Nullable JChannel channel) {
        this.node = node;
        this.region = region;
        this.channel = channel;
    }

    /**
     * Runs one W8 command.
     *
     * @return whether it was one
     */
    boolean command(String[] words) throws Exception {
        switch (words[0]) {
            case "W8-SEED" -> NodeIo.emit("SEEDED", json(seed(Integer.parseInt(words[1]))));
            case "W8-JOIN" -> NodeIo.emit("RESULT", json(join(words[1], Integer.parseInt(words[2]))));
            case "W8-DISRUPT" ->
                NodeIo.emit(
                        "RESULT",
                        json(disrupt(
                                words[1].equals("KILL"),
                                List.of(words[2].split(",")),
                                words.length > 3 ? words[3] : "")));
            case "W8-VERIFY" -> NodeIo.emit("VERIFIED", json(verify()));
            case "W8-SETTLE" -> NodeIo.emit("SETTLED", json(settle()));
            case "IDLE-STATS" -> NodeIo.emit("IDLE-STATS", json(idleStats(words.length > 1 && words[1].equals("GC"))));
            default -> {
                return false;
            }
        }
        return true;
    }

    private static String json(Object o) {
        return Workloads.JSON.writeValueAsString(o);
    }

    /** One add to entity {@code i}, with the message id of its next acknowledged add. */
    private java.util.concurrent.CompletableFuture<Total> add(int i, String id, Duration timeout) {
        return region.ask(id, new Add(id, 1), Total.class, timeout, id + "#" + (acked[i] + 1));
    }

    /** An add sweep: asks every entity to add 1 until each acknowledged one (the acknowledgement is counted). */
    private AskSweep.Outcome addToAll(Duration timeout, Duration maxTime, int window) throws InterruptedException {
        return new AskSweep(this::add)
                .run(
                        ids.length,
                        i -> ids[i],
                        (i, t) -> {
                            acked[i]++;
                            return true;
                        },
                        window,
                        timeout,
                        maxTime,
                        maxTime,
                        0);
    }

    /**
     * A read sweep: asks every entity for its count ({@link Get}) until each answered; an answer below the adds
     * acknowledged to that entity adds the difference to {@code lost[0]}.
     */
    private AskSweep.Outcome getAll(Duration timeout, Duration maxTime, long[] lost) throws InterruptedException {
        AtomicLong shortfall = new AtomicLong();
        AskSweep.Outcome s = new AskSweep(region)
                .run(
                        ids.length,
                        i -> ids[i],
                        (i, t) -> {
                            if (t.count() < acked[i]) {
                                shortfall.addAndGet(acked[i] - t.count());
                            }
                            return true;
                        },
                        2_000,
                        timeout,
                        maxTime,
                        maxTime,
                        0);
        lost[0] = shortfall.get();
        return s;
    }

    private Map<String, Object> seed(int entities) throws Exception {
        ids = Workloads.ids("e-", entities);
        acked = new long[entities];
        long t0 = System.nanoTime();
        AskSweep.Outcome s = addToAll(Duration.ofSeconds(10), Duration.ofSeconds(600), 2_000);
        long t1 = System.nanoTime();
        if (s.notDone() > 0) {
            throw new IllegalStateException("Seeding failed: " + s.notDone() + " entities never acknowledged an add");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("seed_seconds", Workloads.round3(Workloads.seconds(t1 - t0)));
        r.put("seed_asks", s.asks());
        // the time of one read sweep of every entity with nothing failing: the floor under every step's figure
        long[] lost = new long[1];
        long g0 = System.nanoTime();
        AskSweep.Outcome g = getAll(Duration.ofSeconds(10), Duration.ofSeconds(300), lost);
        r.put("read_sweep_s", g.notDone() > 0 ? null : secs(System.nanoTime() - g0));
        r.put("shards_per_node", shardsPerNode());
        return r;
    }

    private Map<String, Integer> shardsPerNode() throws Exception {
        ClusterState state = node.admin().clusterState(Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
        return MembershipWorkloads.shardsPerNode(state, TYPE);
    }

    /**
     * Waits until the cluster is quiet: this node's view has lasted {@code split-brain.stable-after} (so that the next
     * failure is judged against it), no shard is being handed off and the shards per member have not changed for 3 s;
     * at most 300 s.
     *
     * @return the coordinator, the members (oldest first), the shards per member and how long it took
     */
    private Map<String, Object> settle() throws Exception {
        long t0 = System.nanoTime();
        long deadline = t0 + Duration.ofSeconds(300).toNanos();
        Map<String, Integer> last = Map.of();
        long since = System.nanoTime();
        ClusterState state = null;
        while (System.nanoTime() < deadline) {
            try {
                state = node.admin().clusterState(Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                Thread.sleep(100);
                continue;
            }
            Map<String, Integer> now = MembershipWorkloads.shardsPerNode(state, TYPE);
            boolean quiet = node.isViewStable() && state.handoffs().isEmpty() && state.coordinator() != null;
            if (!quiet || !now.equals(last)) {
                last = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since >= Duration.ofSeconds(3).toNanos()) {
                break;
            }
            Thread.sleep(100);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("settle_seconds", secs(System.nanoTime() - t0));
        r.put("settled", System.nanoTime() < deadline);
        Member c = state == null ? null : state.coordinator();
        r.put("coordinator", c == null ? null : c.name());
        r.put("members", node.members().stream().map(Member::name).toList());
        r.put("shards_per_node", last);
        return r;
    }

    /**
     * The join: the clock starts when this node prints {@code W8-STARTED} (the launcher then tells the new node to
     * join), the first figure is when the new node hosts its fair share of the allocated shards (at most {@code
     * fairOfAll}, the share of every shard) (the cluster state polled every 100 ms),
     * the second when afterwards every entity answered a read; then (not timed) every entity acknowledges one more add.
     */
    private Map<String, Object> join(String joiner, int fairOfAll) throws Exception {
        Map<String, Integer> before = shardsPerNode();
        // with fewer entities than shards not every shard is allocated: the fair share is of those that are
        int allocated = before.values().stream().mapToInt(Integer::intValue).sum();
        int fair = Math.max(1, Math.min(fairOfAll, (allocated + before.size()) / (before.size() + 1) - 1));
        long t0 = System.nanoTime();
        NodeIo.emit("W8-STARTED", "");
        long deadline = t0 + Duration.ofSeconds(900).toNanos();
        long first = -1;
        int onNew = 0;
        Map<String, Integer> seen = before;
        while (onNew < fair && System.nanoTime() < deadline) {
            try {
                seen = shardsPerNode();
                onNew = seen.getOrDefault(joiner, 0);
            } catch (Exception e) {
                // a query may time out while shards move: poll again
            }
            if (onNew > 0 && first < 0) {
                first = System.nanoTime();
            }
            if (onNew < fair) {
                Thread.sleep(100);
            }
        }
        long t1 = System.nanoTime();
        Map<String, Object> r = new LinkedHashMap<>();
        if (onNew < fair) {
            r.put("error", "the new node hosted only " + onNew + " of " + fair + " shards after 900 s");
            r.put("shards_at_end", seen);
            return r;
        }
        long[] lost = new long[1];
        AskSweep.Outcome s = getAll(Duration.ofSeconds(1), Duration.ofSeconds(300), lost);
        long t2 = System.nanoTime();
        addAfter(r);
        r.put("seconds_to_first_shard", first < 0 ? null : secs(first - t0));
        r.put("seconds_to_fair_share", secs(t1 - t0));
        r.put("seconds_to_all_answered", s.notDone() > 0 ? null : secs(t2 - t0));
        if (s.notDone() > 0) {
            r.put("error", s.notDone() + " entities never answered after the join");
        }
        r.put("lost_seen_by_reads", lost[0]);
        r.put("fair_share", fair);
        r.put("members_before", before.size());
        r.put("shards_before", before);
        r.put("shards_at_fair_share", seen);
        r.put("probe_asks", s.asks());
        r.put("probe_failures", s.failures());
        return r;
    }

    /**
     * A kill ({@code kill}: SIGKILL of {@code pids} from here, as W7) or a graceful leave (this node prints {@code
     * W8-STARTED} and the launcher tells the leaving nodes to stop) of the members {@code names}; then every entity is
     * asked for its count (500 ms timeout, silent ones asked again) until each answered, and then (not timed) to add
     * 1 until each acknowledged. Also timed: until no member of
     * {@code names} is in this node's view, and, when the coordinator was among them, until a new coordinator is known
     * and (when it is this node) until it has rebuilt its table.
     */
    private Map<String, Object> disrupt(boolean kill, List<String> names, String pids) throws Exception {
        Member coordinator = node.coordinator();
        String coordinatorName = coordinator == null ? null : coordinator.name();
        Map<String, Integer> before = shardsPerNode();
        DisruptionWatch watch = new DisruptionWatch(node, names, coordinatorName);
        long t0 = System.nanoTime();
        boolean done = true;
        if (kill) {
            for (String pid : pids.split(",")) {
                done &= ProcessHandle.of(Long.parseLong(pid))
                        .map(ProcessHandle::destroyForcibly)
                        .orElse(false);
            }
        } else {
            NodeIo.emit("W8-STARTED", "");
        }
        watch.start();
        long[] lost = new long[1];
        AskSweep.Outcome s = getAll(Duration.ofMillis(500), Duration.ofSeconds(300), lost);
        long t1 = System.nanoTime();
        watch.stop(Duration.ofSeconds(30));
        Map<String, Object> r = new LinkedHashMap<>();
        boolean ok = done && s.notDone() == 0;
        r.put("seconds", ok ? secs(t1 - t0) : null);
        if (!ok) {
            r.put("error", !done ? "kill failed" : s.notDone() + " entities never answered within 300 s");
        }
        r.put("lost_seen_by_reads", lost[0]);
        r.put("signal", kill ? "SIGKILL" : "graceful leave");
        r.put("members_before", before.size());
        watch.report(r, t0);
        r.put(
                "shards_of_those",
                names.stream().mapToInt(n -> before.getOrDefault(n, 0)).sum());
        r.put("shards_before", before);
        r.put("shards_after", shardsPerNode());
        r.put("probe_asks", s.asks());
        r.put("probe_rounds", s.rounds());
        r.put("probe_failures", s.failures());
        addAfter(r);
        return r;
    }

    /**
     * One more acknowledged add to every entity (not timed), so that the count check after each step also covers
     * writes to the shards where they live now.
     */
    private void addAfter(Map<String, Object> r) throws InterruptedException {
        long t0 = System.nanoTime();
        AskSweep.Outcome a = addToAll(Duration.ofSeconds(10), Duration.ofSeconds(600), 2_000);
        r.put("add_sweep_s", secs(System.nanoTime() - t0));
        if (a.notDone() > 0) {
            r.put("error", a.notDone() + " entities never acknowledged an add after the step");
        }
    }

    /** Reads every entity's count (Get asks) and compares it with the adds acknowledged to it. */
    private Map<String, Object> verify() throws InterruptedException {
        long[] count = new long[ids.length];
        Arrays.fill(count, -1);
        AskSweep.Outcome s = new AskSweep(region)
                .run(
                        ids.length,
                        i -> ids[i],
                        (i, t) -> {
                            count[i] = t.count();
                            return true;
                        },
                        2_000,
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(300),
                        Duration.ofSeconds(300),
                        100);
        long lost = 0;
        long twice = 0;
        long ackedTotal = 0;
        int entitiesShort = 0;
        for (int i = 0; i < ids.length; i++) {
            ackedTotal += acked[i];
            if (count[i] < 0) {
                continue;
            }
            if (count[i] < acked[i]) {
                lost += acked[i] - count[i];
                entitiesShort++;
            } else {
                twice += count[i] - acked[i];
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("acknowledged_adds", ackedTotal);
        r.put("acknowledged_lost", lost);
        r.put("entities_short", entitiesShort);
        r.put("applied_twice", twice);
        r.put("unread", s.notDone());
        return r;
    }

    /** This node's JGroups traffic so far and its heap (after full collections when {@code gc}). */
    private Map<String, Object> idleStats(boolean gc) throws InterruptedException {
        Map<String, Object> r = new LinkedHashMap<>();
        if (gc) {
            r.put("heap_used_after_gc", Workloads.heapUsedAfterFullGc());
        } else {
            r.put(
                    "heap_used",
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        TP tp = channel == null ? null : channel.getProtocolStack().getTransport();
        if (tp != null && tp.getMessageStats().enabled()) {
            MsgStats m = tp.getMessageStats();
            r.put("msgs_sent", m.getNumMsgsSent());
            r.put("bytes_sent", m.getNumBytesSent());
            r.put("msgs_received", m.getNumMsgsReceived());
            r.put("bytes_received", m.getNumBytesReceived());
        }
        r.put("members", node.members().size());
        return r;
    }

    private static double secs(long nanos) {
        return Workloads.round3(Workloads.seconds(nanos));
    }
}
