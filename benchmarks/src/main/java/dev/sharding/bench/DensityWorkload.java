package dev.sharding.bench;

import dev.sharding.ClusterState;
import dev.sharding.LocalRegion;
import dev.sharding.Member;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The node side of W9, density ({@link DensityScenario}): on the hosting node A, {@code W9-ACTIVATE n} activates
 * {@code n} entities as W5 does and measures the rate and the retained heap per entity, with a class histogram of what
 * that heap is; on the node B that takes A's shards over, {@code W9-HANDOFF} times A's graceful leave from B's side.
 */
final class DensityWorkload {

    private static final String TYPE = "counter";

    /** Entities activated and confirmed at a time, so that a heap that fills up stops the run early. */
    static final int BATCH = 1_000_000;

    /**
     * The share of the maximum heap past which the next batch of entities would take the live heap (judged after a
     * full collection) stops the activation.
     */
    static final double HEAP_FULL = 0.9;

    /** The timeout of the asks that confirm an activation. */
    static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);

    /** How long B waits for A's shards: well past A's own bound on its leave (handoff-timeout, 60 s by default). */
    static final Duration HANDOFF_WAIT = Duration.ofSeconds(300);

    /** Entities of the measured ones that B asks once it hosts every shard. */
    static final int SAMPLE = 10_000;

    private final ShardingNode node;

    private final ShardRegion<Counter> region;

    private final AskSweep sweep;

    DensityWorkload(ShardingNode node, ShardRegion<Counter> region) {
        this.node = node;
        this.region = region;
        this.sweep = new AskSweep(region);
    }

    /** Runs a W9 command; false if the command is not one of W9's. */
    boolean command(String[] words) throws Exception {
        switch (words[0]) {
            case "W9-ACTIVATE" ->
                NodeIo.emit("ACTIVATED", Workloads.JSON.writeValueAsString(activate(Integer.parseInt(words[1]))));
            case "W9-HANDOFF" ->
                NodeIo.emit("RESULT", Workloads.JSON.writeValueAsString(handoff(words[1], Integer.parseInt(words[2]))));
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * W5's activation with {@code n} ids: 1,000 priming ids, a warm-up of at least 5 s and {@code n / 10} entities
     * ({@code w-*}), then one tell to each of {@code n} new ids ({@code e-*}) and Get asks until every count is 1, in
     * batches of {@link #BATCH}; the heap is read after full collections before, at once after (as W5) and once the
     * entities are idle (every ask of the activation past its deadline), with a class histogram before and when idle.
     */
    private Map<String, Object> activate(int n) throws Exception {
        AskSweep.Outcome primed = confirm("p-", 0, 1_000, false);
        if (primed.notDone() > 0) {
            throw new IllegalStateException("Priming failed: " + primed.notDone() + " entities never answered");
        }
        int warmBatch = Math.max(1, Math.min(n / 10, 100_000));
        long warmStart = System.nanoTime();
        int warmed = 0;
        while (warmed < n / 10 || System.nanoTime() - warmStart < Workloads.WARM_UP.toNanos()) {
            AskSweep.Outcome w = confirm("w-", warmed, warmBatch, true);
            if (w.notDone() > 0) {
                throw new IllegalStateException("Warm-up activation failed: " + w.notDone() + " entities");
            }
            warmed += warmBatch;
        }
        double warmSeconds = Workloads.seconds(System.nanoTime() - warmStart);

        awaitIdle(System.nanoTime());
        long before = Workloads.heapUsedAfterFullGc();
        Map<String, long[]> histogramBefore = ClassHistogram.take();
        long max = Runtime.getRuntime().maxMemory();
        long measured = 0;
        long guardNanos = 0;
        int guardCollections = 0;
        int done = 0;
        long asks = 0;
        String error = null;
        while (done < n && error == null) {
            int count = Math.min(BATCH, n - done);
            long t0 = System.nanoTime();
            AskSweep.Outcome s;
            try {
                s = confirm("e-", done, count, true);
            } catch (OutOfMemoryError e) {
                error = "out of memory after " + done + " of " + n + " entities";
                break;
            }
            measured += System.nanoTime() - t0;
            asks += s.asks();
            if (s.notDone() > 0) {
                error = s.notDone() + " entities did not confirm count 1";
                break;
            }
            done += count;
            int following = Math.min(BATCH, n - done);
            if (following > 0 && !fits(before, done, following, max, false)) {
                // the old generation says the next batch may not fit: a full collection (not timed) decides
                long g0 = System.nanoTime();
                guardCollections++;
                boolean fits = fits(before, done, following, max, true);
                guardNanos += System.nanoTime() - g0;
                if (!fits) {
                    error = "heap full: with " + done + " of " + n + " entities live, "
                            + ManagementFactory.getMemoryMXBean()
                                    .getHeapMemoryUsage()
                                    .getUsed() + " of " + max
                            + " bytes were used after a full collection, and " + following + " more entities would"
                            + " take it past " + Math.round(HEAP_FULL * 100) + "%";
                }
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        long lastAsk = System.nanoTime();
        long atOnce = Workloads.heapUsedAfterFullGc();
        // idle: an ask still unanswered at a tick of the node's control thread is kept until its deadline, even once
        // answered; W5 reads the heap at once, with those of the last ASK_TIMEOUT still in it
        awaitIdle(lastAsk);
        long after = Workloads.heapUsedAfterFullGc();
        Map<String, long[]> histogramAfter = ClassHistogram.take();
        int per = Math.max(done, 1);
        r.put("entities_per_s", done == 0 ? null : Math.round(done / Workloads.seconds(measured)));
        r.put("bytes_per_entity", done == 0 ? null : Math.round((double) (after - before) / per));
        r.put("n", n);
        r.put("bytes_per_entity_at_once", done == 0 ? null : Math.round((double) (atOnce - before) / per));
        if (error != null) {
            r.put("error", error);
        }
        r.put("activated", done);
        r.put("seconds", Workloads.round3(Workloads.seconds(measured)));
        r.put("heap_before_bytes", before);
        r.put("heap_after_bytes", after);
        r.put("heap_at_once_bytes", atOnce);
        r.put("max_heap_bytes", max);
        r.put("live_entities_total", 1_000 + warmed + done);
        LocalRegion local = node.localRegion(TYPE);
        // fewer than live_entities_total means some were passivated while measured, and the heap figure is low
        r.put("live_entities_counted", local.activeEntities());
        r.put("shards_hosted", local.hostedShards());
        r.put("confirm_asks", asks);
        r.put("guard_full_gcs", guardCollections);
        r.put("guard_full_gc_s", Workloads.round3(Workloads.seconds(guardNanos)));
        r.put("warmup_entities", warmed);
        r.put("warmup_s", Workloads.round3(warmSeconds));
        r.put("histogram_per_entity", ClassHistogram.perEntity(histogramBefore, histogramAfter, per, 20));
        return r;
    }

    /**
     * Whether {@code more} entities would still fit under {@link #HEAP_FULL} of the heap, at the heap per entity of the
     * {@code live} ones so far: judged from the old generation's use now (where the entities end up), or from the heap
     * used after a full collection ({@code collect}).
     */
    private static boolean fits(long before, int live, int more, long max, boolean collect) {
        long used;
        if (collect) {
            System.gc();
            used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        } else {
            used = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP
                        && (pool.getName().contains("Old") || pool.getName().contains("Tenured"))) {
                    used += pool.getUsage().getUsed();
                }
            }
        }
        double perEntity = Math.max(0, used - before) / (double) live;
        return used + perEntity * more <= HEAP_FULL * max;
    }

    /** Waits until every ask sent up to a time is past its deadline, so that the node keeps none of them. */
    private static void awaitIdle(long lastAskNanos) throws InterruptedException {
        long idleAt =
                lastAskNanos + ASK_TIMEOUT.toNanos() + Duration.ofSeconds(1).toNanos();
        while (System.nanoTime() - idleAt < 0) {
            Thread.sleep(Math.max(1, (idleAt - System.nanoTime()) / 1_000_000));
        }
    }

    /**
     * Activates ({@code tell}) or only asks ids {@code prefix + from ..}, then asks Get in windows of 10,000 until
     * every count is 1 (tells) or every entity answered.
     */
    private AskSweep.Outcome confirm(String prefix, int from, int count, boolean tell) throws InterruptedException {
        if (tell) {
            for (int i = from; i < from + count; i++) {
                String id = prefix + i;
                region.tell(id, new Add(id, 1));
            }
        }
        return sweep.run(
                count,
                i -> prefix + (from + i),
                (i, t) -> !tell || t.count() == 1,
                10_000,
                ASK_TIMEOUT,
                Duration.ofSeconds(600),
                Duration.ofSeconds(10),
                20);
    }

    /**
     * On B: prints {@code W9-STARTED} (the launcher then tells the leaving node to leave) and times, from there, until
     * this node hosts every shard of the type, until the leaving member is out of the view, and until a sample of
     * {@link #SAMPLE} of the measured ids (spread over all of them) answered a Get (each then starts anew here).
     */
    private Map<String, Object> handoff(String leaving, int entities) throws Exception {
        LocalRegion local = node.localRegion(TYPE);
        int shards = local.numberOfShards();
        ClusterState state = node.admin().clusterState(Duration.ofSeconds(10)).get(30, TimeUnit.SECONDS);
        Map<String, Integer> before = MembershipWorkloads.shardsPerNode(state, TYPE);
        long t0 = System.nanoTime();
        NodeIo.emit("W9-STARTED", "");
        long deadline = t0 + HANDOFF_WAIT.toNanos();
        long allHosted = -1;
        long gone = -1;
        long firstShard = -1;
        while ((allHosted < 0 || gone < 0) && System.nanoTime() < deadline) {
            long now = System.nanoTime();
            int hosted = local.hostedShards();
            if (firstShard < 0 && hosted > 0) {
                firstShard = now;
            }
            if (allHosted < 0 && hosted == shards) {
                allHosted = now;
            }
            if (gone < 0 && node.members().stream().map(Member::name).noneMatch(leaving::equals)) {
                gone = now;
            }
            Thread.sleep(5);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("handoff_s", allHosted < 0 ? null : Workloads.round3(Workloads.seconds(allHosted - t0)));
        if (allHosted < 0 || gone < 0) {
            r.put(
                    "handoff_error",
                    "after 1200 s this node hosted " + local.hostedShards() + " of " + shards
                            + " shards; the leaving node " + (gone < 0 ? "was still a member" : "had left"));
            return r;
        }
        int sample = Math.min(SAMPLE, entities);
        long stride = Math.max(1, entities / sample);
        AskSweep.Outcome s = sweep.run(
                sample,
                i -> "e-" + (i * stride),
                (i, t) -> true,
                sample,
                Duration.ofSeconds(1),
                Duration.ofSeconds(300),
                Duration.ofSeconds(300),
                0);
        long answered = System.nanoTime();
        r.put("handoff_first_shard_s", Workloads.round3(Workloads.seconds(firstShard - t0)));
        r.put("handoff_left_view_s", Workloads.round3(Workloads.seconds(gone - t0)));
        r.put("handoff_sample_answered_s", s.notDone() > 0 ? null : Workloads.round3(Workloads.seconds(answered - t0)));
        r.put("handoff_sample", sample);
        r.put("handoff_sample_failures", s.failures());
        r.put("handoff_shards", shards);
        r.put("handoff_shards_before", before);
        r.put("handoff_shards_after", local.hostedShards());
        return r;
    }
}
