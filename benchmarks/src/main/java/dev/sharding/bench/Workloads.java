package dev.sharding.bench;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import tools.jackson.databind.json.JsonMapper;

/**
 * The measuring side of every workload, run by the node that makes the load (the only node for W1 and W5, the
 * proxy-only node A for W2-W4, node A for W6 and W7). Each workload primes (asks every entity once, so every shard is
 * allocated and its home known), warms up on the same workload for at least 5 s and 20 % of its messages, then
 * measures, and prints {@code RESULT} with a JSON object of what it counted and timed.
 */
final class Workloads {

    static final JsonMapper JSON = JsonMapper.builder().build();

    static final Duration WARM_UP = Duration.ofSeconds(5);

    private final ShardingNode node;

    private final ShardRegion<Counter> region;

    private final AskSweep sweep;

    private final String name;

    private final MembershipWorkloads membership;

    Workloads(ShardingNode node, ShardRegion<Counter> region, String name) {
        this.node = node;
        this.region = region;
        this.sweep = new AskSweep(region);
        this.name = name;
        this.membership = new MembershipWorkloads(node, sweep, region);
    }

    /** Runs one command of the launcher. */
    void command(String[] words) throws Exception {
        switch (words[0]) {
            case "MEMBERS" -> {
                membership.awaitMembers(Integer.parseInt(words[1]), Duration.ofSeconds(120));
                NodeIo.emit("MEMBERS", name + " " + node.members().size());
            }
            case "RUN" -> NodeIo.emit("RESULT", JSON.writeValueAsString(run(words[1])));
            case "SEED" ->
                NodeIo.emit(
                        "SEEDED",
                        JSON.writeValueAsString(
                                membership.seed(Integer.parseInt(words[1]), Integer.parseInt(words[2]))));
            case "W6" ->
                NodeIo.emit(
                        "RESULT",
                        JSON.writeValueAsString(membership.w6(
                                Integer.parseInt(words[1]), words.length > 2 ? Integer.parseInt(words[2]) : 0)));
            case "W7" ->
                NodeIo.emit(
                        "RESULT",
                        JSON.writeValueAsString(membership.w7(
                                Long.parseLong(words[1]),
                                words[2],
                                Integer.parseInt(words[3]),
                                words.length > 4 && words[4].equals("STOP"))));
            default -> throw new IllegalArgumentException("Unknown command " + String.join(" ", words));
        }
    }

    private Map<String, Object> run(String workload) throws InterruptedException {
        return switch (workload) {
            case "W1" -> tells(1_000, 2_000_000);
            case "W2" -> tells(1_000, 1_000_000);
            case "W3" -> asks(1_000, 50_000, 1);
            case "W4" -> asks(1_000, 500_000, 64);
            case "W5" -> activation(1_000_000);
            default -> throw new IllegalArgumentException("Unknown workload " + workload);
        };
    }

    static String[] ids(String prefix, int n) {
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = prefix + i;
        }
        return ids;
    }

    // ---- W1, W2 ------------------------------------------------------------------------------------------------

    /** W1 and W2: {@code n} tells from this thread, round robin; then asks until every count adds up. */
    private Map<String, Object> tells(int entities, int n) throws InterruptedException {
        String[] ids = ids("e-", entities);
        long[] expected = new long[entities];
        long[] seen = new long[entities];
        prime(ids, expected);
        long warmStart = System.nanoTime();
        long warmMessages = 0;
        do {
            sendTells(ids, expected, n / 5);
            warmMessages += n / 5;
            AskSweep.Outcome c = confirm(ids, expected, seen);
            if (c.notDone() > 0) {
                return lost("warm-up", n, entities, expected, seen, c, warmMessages);
            }
        } while (System.nanoTime() - warmStart < WARM_UP.toNanos());
        double warmSeconds = seconds(System.nanoTime() - warmStart);

        long t0 = System.nanoTime();
        sendTells(ids, expected, n);
        long sent = System.nanoTime();
        AskSweep.Outcome c = confirm(ids, expected, seen);
        long t1 = System.nanoTime();
        if (c.notDone() > 0) {
            return lost("measured part", n, entities, expected, seen, c, warmMessages);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("msgs_per_s", Math.round(n / seconds(t1 - t0)));
        r.put("n", n);
        r.put("seconds", round3(seconds(t1 - t0)));
        r.put("send_seconds", round3(seconds(sent - t0)));
        r.put("entities", entities);
        r.put("confirm_asks", c.asks());
        r.put("confirm_rounds", c.rounds());
        r.put("warmup_msgs", warmMessages);
        r.put("warmup_s", round3(warmSeconds));
        return r;
    }

    private void prime(String[] ids, long[] counts) throws InterruptedException {
        AskSweep.Outcome p = sweep.run(
                ids.length,
                i -> ids[i],
                (i, t) -> {
                    counts[i] = t.count();
                    return true;
                },
                ids.length,
                Duration.ofSeconds(10),
                Duration.ofSeconds(120),
                Duration.ofSeconds(30),
                100);
        if (p.notDone() > 0) {
            throw new IllegalStateException(
                    "Priming failed: " + p.notDone() + " of " + ids.length + " entities never answered");
        }
    }

    private void sendTells(String[] ids, long[] expected, int count) {
        int e = 0;
        for (int k = 0; k < count; k++) {
            String id = ids[e];
            region.tell(id, new Add(id, 1));
            expected[e]++;
            if (++e == ids.length) {
                e = 0;
            }
        }
    }

    private AskSweep.Outcome confirm(String[] ids, long[] expected, long[] seen) throws InterruptedException {
        return sweep.run(
                ids.length,
                i -> ids[i],
                (i, t) -> {
                    seen[i] = t.count();
                    return t.count() == expected[i];
                },
                ids.length,
                Duration.ofSeconds(30),
                Duration.ofSeconds(600),
                Duration.ofSeconds(5),
                10);
    }

    private static Map<String, Object> lost(
            String phase, int n, int entities, long[] expected, long[] seen, AskSweep.Outcome c, long warmMessages) {
        long missing = 0;
        for (int i = 0; i < entities; i++) {
            missing += expected[i] - seen[i];
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("msgs_per_s", null);
        r.put("n", n);
        r.put(
                "error",
                "counts never added up in the " + phase + ": " + c.notDone() + " of " + entities + " entities short"
                        + (c.stalled() ? ", counts unchanged for 5 s (messages lost)" : ""));
        r.put("lost_messages", missing);
        r.put("warmup_msgs", warmMessages);
        return r;
    }

    // ---- W3, W4 ------------------------------------------------------------------------------------------------

    /** W3 and W4: {@code outstanding} asks in flight at all times, {@code n} asks over the entities. */
    private Map<String, Object> asks(int entities, int n, int outstanding) throws InterruptedException {
        String[] ids = ids("e-", entities);
        long[] base = new long[entities];
        prime(ids, base);
        long warmStart = System.nanoTime();
        long warmAsks = 0;
        long warmErrors = 0;
        do {
            AskChain warm = new AskChain(region, ids, n / 5, new ConcurrentHistogram(3));
            warm.run(outstanding, Duration.ofSeconds(600));
            warmAsks += n / 5;
            warmErrors += warm.errors();
        } while (System.nanoTime() - warmStart < WARM_UP.toNanos());
        double warmSeconds = seconds(System.nanoTime() - warmStart);

        Histogram h = new ConcurrentHistogram(3);
        AskChain chain = new AskChain(region, ids, n, h);
        long nanos = chain.run(outstanding, Duration.ofSeconds(900));

        long[] after = new long[entities];
        prime(ids, after);
        long sum = 0;
        for (int i = 0; i < entities; i++) {
            sum += after[i] - base[i];
        }
        Map<String, Object> r = new LinkedHashMap<>();
        if (outstanding > 1) {
            r.put("asks_per_s", Math.round(n / seconds(nanos)));
            r.put("p99_us", micros(h.getValueAtPercentile(99.0)));
        } else {
            r.put("p50_us", micros(h.getValueAtPercentile(50.0)));
            r.put("p99_us", micros(h.getValueAtPercentile(99.0)));
            r.put("p999_us", micros(h.getValueAtPercentile(99.9)));
        }
        r.put("n", n);
        if (outstanding > 1) {
            r.put("p50_us", micros(h.getValueAtPercentile(50.0)));
            r.put("p999_us", micros(h.getValueAtPercentile(99.9)));
        } else {
            r.put("asks_per_s", Math.round(n / seconds(nanos)));
        }
        r.put("max_us", micros(h.getMaxValue()));
        r.put("mean_us", Math.round(h.getMean() / 100.0) / 10.0);
        r.put("outstanding", outstanding);
        r.put("errors", chain.errors());
        r.put("seconds", round3(seconds(nanos)));
        r.put("counts_add_up", sum == warmAsks - warmErrors + n - chain.errors());
        r.put("warmup_asks", warmAsks);
        r.put("warmup_s", round3(warmSeconds));
        return r;
    }

    // ---- W5 ----------------------------------------------------------------------------------------------------

    /** W5: one tell to each of {@code n} new ids, then asks in windows of 10,000 until every count is 1. */
    private Map<String, Object> activation(int n) throws InterruptedException {
        prime(ids("p-", 1_000), new long[1_000]);
        long warmStart = System.nanoTime();
        int warmed = 0;
        while (warmed < n / 5 || System.nanoTime() - warmStart < WARM_UP.toNanos()) {
            AskSweep.Outcome w = activate("w-", warmed, n / 10);
            if (w.notDone() > 0) {
                throw new IllegalStateException("Warm-up activation failed: " + w.notDone() + " entities");
            }
            warmed += n / 10;
        }
        double warmSeconds = seconds(System.nanoTime() - warmStart);

        long before = heapUsedAfterFullGc();
        long t0 = System.nanoTime();
        AskSweep.Outcome s = activate("e-", 0, n);
        long t1 = System.nanoTime();
        Map<String, Object> r = new LinkedHashMap<>();
        if (s.notDone() > 0) {
            r.put("entities_per_s", null);
            r.put("n", n);
            r.put("error", s.notDone() + " entities did not confirm count 1");
            return r;
        }
        long after = heapUsedAfterFullGc();
        r.put("entities_per_s", Math.round(n / seconds(t1 - t0)));
        r.put("bytes_per_entity", Math.round((double) (after - before) / n));
        r.put("n", n);
        r.put("seconds", round3(seconds(t1 - t0)));
        r.put("heap_before_bytes", before);
        r.put("heap_after_bytes", after);
        r.put("live_entities_total", 1_000 + warmed + n);
        try {
            // fewer than live_entities_total means some were passivated while measured, and the heap figure is low
            r.put("live_entities_counted", membership.liveEntities());
        } catch (Exception e) {
            r.put("live_entities_counted", null);
        }
        r.put("confirm_asks", s.asks());
        r.put("confirm_rounds", s.rounds());
        r.put("warmup_entities", warmed);
        r.put("warmup_s", round3(warmSeconds));
        r.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        return r;
    }

    private AskSweep.Outcome activate(String prefix, int from, int count) throws InterruptedException {
        for (int i = from; i < from + count; i++) {
            String id = prefix + i;
            region.tell(id, new Add(id, 1));
        }
        return sweep.run(
                count,
                i -> prefix + (from + i),
                (i, t) -> t.count() == 1,
                10_000,
                Duration.ofSeconds(30),
                Duration.ofSeconds(600),
                Duration.ofSeconds(10),
                20);
    }

    static long heapUsedAfterFullGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(300);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    // ---- numbers -----------------------------------------------------------------------------------------------

    static double seconds(long nanos) {
        return nanos / 1e9;
    }

    static double round3(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }

    static double micros(long nanos) {
        return Math.round(nanos / 100.0) / 10.0;
    }
}
