package dev.sharding.sample;

import dev.sharding.sample.PartitionProcessIT.Node;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What the process tests of the network lab ask the nodes they started: views and coordinator from the actuator's
 * sharding endpoint, HTTP statuses, and the waits on conditions and deadlines they share.
 */
final class LabProbe {

    private final JsonHttp http;

    LabProbe(Duration timeout) {
        this.http = new JsonHttp(timeout);
    }

    /** The coordinator a node names, or empty when it does not answer. */
    String coordinatorOf(Node n) {
        JsonNode json = sharding(n);
        return json == null ? "" : SampleCluster.nameOf(json.path("coordinator"));
    }

    /** The members a node sees, or none when it does not answer. */
    Set<String> membersOf(Node n) {
        JsonNode json = sharding(n);
        Set<String> names = new HashSet<>();
        if (json != null) {
            json.path("members").forEach(m -> names.add(SampleCluster.nameOf(m)));
        }
        return names;
    }

    /** Each node's view, for a report. */
    String views(List<Node> nodes) {
        return nodes.stream().map(n -> n.name() + ": " + membersOf(n)).collect(Collectors.joining("; "));
    }

    /** Whether every node sees exactly the given members. */
    boolean oneView(List<Node> nodes) {
        Set<String> all = nodes.stream().map(Node::name).collect(Collectors.toSet());
        return nodes.stream().allMatch(n -> membersOf(n).equals(all));
    }

    /**
     * Whether the cluster is settled as a node sees it: no shard moving, and the shards of every entity type spread
     * within one of each other over the members that host them (so that no rebalance is due).
     */
    boolean settled(Node n) {
        JsonNode json = sharding(n);
        if (json == null || !json.path("handoffs").isEmpty()) {
            return false;
        }
        boolean[] spread = {true};
        json.path("entityTypes").forEach(regions -> {
            int least = Integer.MAX_VALUE;
            int most = 0;
            for (JsonNode r : regions) {
                if (!r.path("proxyOnly").asBoolean()) {
                    least = Math.min(least, r.path("shardCount").asInt());
                    most = Math.max(most, r.path("shardCount").asInt());
                }
            }
            if (most - least > 1) {
                spread[0] = false;
            }
        });
        return spread[0];
    }

    /** The status of a GET, or -1 when there was no answer. */
    int status(String url) {
        try {
            return http.get(url).status();
        } catch (UncheckedIOException e) {
            return -1;
        }
    }

    private @Nullable JsonNode sharding(Node n) {
        try {
            JsonHttp.Answer a = http.get(n.url("/actuator/sharding"));
            return a.status() == 200 ? a.json() : null;
        } catch (UncheckedIOException e) {
            return null;
        }
    }

    /** Polls a condition every 200 ms until it holds (true) or the timeout passed (false). */
    static boolean poll(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            SampleCluster.pause(Duration.ofMillis(200));
        }
        return true;
    }

    /** Sleeps until a deadline on the monotonic clock: the deliberate length of a window. */
    static void pauseUntil(long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
