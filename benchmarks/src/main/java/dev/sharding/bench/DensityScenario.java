package dev.sharding.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * W9, density: many live entities on one node, and the handoff of all its shards to another. It extends W5 (the
 * activation of 1,000,000 entities) to {@code --w9-entities} (default 10,000,000) on a node of {@code --w9-heap}
 * (default 4g), and runs only when named.
 *
 * <ol>
 *   <li><b>Activation</b> on node A, alone in its cluster (so it hosts every shard and coordinates): 1,000 priming
 *       ids ({@code p-*}, asked once), a warm-up of at least 5 s and {@code n / 10} entities ({@code w-*}, 100,000 at
 *       a time at most), then one {@code Add} tell to each of {@code n} new ids ({@code e-*}) and Get asks in windows
 *       of 10,000 until every count is 1, {@value DensityWorkload#BATCH} ids at a time; only those batches are timed.
 *       {@code entities_per_s} = n / that time. {@code bytes_per_entity} = (heap used after 3x {@code System.gc()}
 *       after - before) / n, each read once the entities are idle: 31 s after the last ask of the warm-up and of the
 *       activation, when every ask is past its deadline (30 s), as the node keeps an ask unanswered at one of its 20
 *       ms ticks until then; {@code bytes_per_entity_at_once} reads the heap after at once, as W5 does. {@code histogram_per_entity}: the growth of the JVM's class histogram of live
 *       objects ({@code GC.class_histogram}) over the same span, per entity, the 20 classes that grew most. If after
 *       a batch the next one would take the live heap past 90% of the maximum (judged from the old generation's use, then
 *       confirmed by a full collection that is not timed: {@code guard_full_gcs}), the activation stops there and the line has an {@code error} and the figures of the
 *       entities activated ({@code activated}). Passivation is off for the type
 *       ({@code sharding.entities.counter.idle-timeout=0}), so that no entity is passivated while it is measured.
 *   <li><b>Handoff</b>: node B (heap 1g, same settings) joins; as soon as it is registered (well within the rebalance
 *       interval, so no rebalance has moved anything: {@code handoff_shards_before}) B prints that it is ready to time
 *       it, and the launcher tells A to stop gracefully (its Spring context is closed: it hands off every shard and
 *       leaves). On B's clock: {@code handoff_s} until B hosts every shard; {@code handoff_left_view_s} until A is out
 *       of B's view; {@code handoff_sample_answered_s} until afterwards 10,000 of the measured ids, spread over all,
 *       answered a Get (each starts anew on B: the counter keeps no state across a move). {@code leave_close_s}: A's
 *       own time to close its context.
 * </ol>
 *
 * <p>Memory: A has {@code -Xms/-Xmx} of {@code --w9-heap}, B 1g: about 6 GB in all at the defaults. Time at the
 * defaults: about 5 minutes on an idle 2-core machine (the activation at W5's rate, two 31 s waits for idleness, about
 * ten full collections of a heap of up to 4 GB, the handoff, the JVMs' starts); under a minute for 200,000 entities.
 */
final class DensityScenario {

    /**
     * W9's options.
     *
     * @param entities entities activated and measured
     * @param heap heap of the hosting node
     */
    record Options(int entities, String heap) {

        static Options defaults() {
            return new Options(10_000_000, "4g");
        }
    }

    /** Heap of node B, which hosts the shards but none of the measured entities. */
    static final String TARGET_HEAP = "1g";

    static final List<String> FIGURES = List.of("entities_per_s", "bytes_per_entity", "handoff_s");

    static final String NOTES = "W5 with more entities, then a handoff: node A alone (coordinator, every shard) with"
            + " 1000 priming (p-*) and warm-up (w-*, at least 5 s and n/10) entities that stay live and are in both heap"
            + " readings, then n new ids by tell and Get asks (timeout 30 s) in windows of 10000 until every count is 1, "
            + DensityWorkload.BATCH + " ids at a time (only those batches timed); heap = MemoryMXBean used after 3x"
            + " System.gc(), each read 31 s after the last ask of the warm-up and of the activation (idle: every ask past"
            + " its deadline; bytes_per_entity_at_once: the reading after taken at once, as W5); histogram_per_entity = growth of GC.class_histogram over the same span / n; CHANGED on"
            + " both nodes: sharding.entities.counter.idle-timeout=0 (no passivation); then node B (-Xms1g -Xmx1g)"
            + " joins and, once registered (before any rebalance), A is told to stop gracefully (Spring context closed:"
            + " hands off every shard, then leaves); handoff_s = from then until B hosts all shards (B's clock, polled"
            + " every 5 ms), handoff_sample_answered_s = until 10000 measured ids answered a Get on B (1 s timeout,"
            + " asked again until answered), leave_close_s = A's context close";

    private static final Duration START = Duration.ofSeconds(180);

    private static final Duration ACTIVATION = Duration.ofSeconds(3600);

    /** Longer than B waits for the shards ({@link DensityWorkload#HANDOFF_WAIT}) and then asks its sample. */
    private static final Duration LEAVE = Duration.ofSeconds(900);

    private DensityScenario() {}

    /** Runs W9; the figures and what each node reported. */
    static ObjectNode run(Launcher launcher, String tag, Options o) throws Exception {
        String cluster = Launcher.newClusterName();
        List<Integer> ports = Ports.pick(2);
        NodeProcess a = launcher.start(tag, "A", o.heap(), args(cluster, ports.get(0), ports));
        String aName = a.await("READY", START).split(" ")[1];
        a.send("MEMBERS 1");
        a.await("MEMBERS", START);
        a.send("W9-ACTIVATE " + o.entities());
        ObjectNode r = (ObjectNode) Workloads.JSON.readTree(a.await("ACTIVATED", ACTIVATION));
        if (r.has("error") && r.path("activated").asInt(0) == 0) {
            return r;
        }
        NodeProcess b = launcher.start(tag, "B", TARGET_HEAP, args(cluster, ports.get(1), ports));
        b.await("READY", START);
        a.send("MEMBERS 2");
        b.send("MEMBERS 2");
        a.await("MEMBERS", START);
        b.await("MEMBERS", START);
        b.send("W9-HANDOFF " + aName + " " + o.entities());
        b.await("W9-STARTED", START);
        a.send("LEAVE");
        ObjectNode handoff = (ObjectNode) Workloads.JSON.readTree(b.await("RESULT", LEAVE));
        r.setAll(handoff);
        String left = a.await("LEFT", LEAVE);
        r.put("leave_close_s", left.isEmpty() ? null : Double.valueOf(left));
        return r;
    }

    private static List<String> args(String cluster, int port, List<Integer> ports) {
        List<String> args = new ArrayList<>(Launcher.clusterArgs(cluster, port, ports));
        args.add("--sharding.entities.counter.idle-timeout=0");
        return args;
    }
}
