package dev.sharding.test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The "at most one live owner" checker: every incarnation of every entity, with its activation, every message it
 * handled and its stop, on the JVM's monotonic clock.
 *
 * <p>An incarnation is live from its activation to the last message it handled: two incarnations of one entity whose
 * live times overlap, whatever the nodes, are a violation ({@link #overlaps()}). An incarnation whose node lost its
 * lease to serve stays in memory, handling nothing, until its shard is dropped (at most one lease duration later):
 * {@link #objectOverlaps()} lists the incarnations whose objects, from activation to stop, overlapped, for information.
 */
public final class OwnerLog {

    private final Map<String, List<Life>> lives = new ConcurrentHashMap<>();

    /** One incarnation of an entity. */
    public static final class Life {

        final String node;

        final long started = System.nanoTime();

        volatile long stopped = Long.MAX_VALUE;

        volatile long handled;

        volatile long lastHandled = Long.MIN_VALUE;

        Life(String node) {
            this.node = node;
        }

        /** The entity took a message now. */
        public void handled() {
            handled++;
            lastHandled = System.nanoTime();
        }

        /** The entity stopped now. */
        public void stopped() {
            stopped = System.nanoTime();
        }

        @Override
        public String toString() {
            return node + "[" + started / 1_000_000 + " ms.."
                    + (stopped == Long.MAX_VALUE ? "alive" : stopped / 1_000_000 + " ms") + ", " + handled + " messages"
                    + (handled == 0 ? "" : ", the last at " + lastHandled / 1_000_000 + " ms") + "]";
        }
    }

    /**
     * An entity was activated.
     *
     * @param entityId the entity
     * @param node where
     * @return its life, to record its messages and stop
     */
    public Life activated(String entityId, String node) {
        Life life = new Life(node);
        lives.computeIfAbsent(entityId, k -> new CopyOnWriteArrayList<>()).add(life);
        return life;
    }

    /**
     * Every pair of incarnations of one entity that were live at once: the earlier one handled a message after the
     * later one was activated.
     *
     * @return a description of each, empty when ownership was exclusive throughout
     */
    public List<String> overlaps() {
        return pairs(true);
    }

    /**
     * Every pair of incarnations of one entity whose objects existed at once (activation to stop), live or not.
     *
     * @return a description of each
     */
    public List<String> objectOverlaps() {
        return pairs(false);
    }

    private List<String> pairs(boolean live) {
        List<String> found = new ArrayList<>();
        lives.forEach((id, list) -> {
            List<Life> sorted = new ArrayList<>(list);
            sorted.sort(Comparator.comparingLong(l -> l.started));
            for (int i = 1; i < sorted.size(); i++) {
                for (int j = 0; j < i; j++) {
                    Life earlier = sorted.get(j);
                    Life later = sorted.get(i);
                    long end = live ? (earlier.handled == 0 ? Long.MIN_VALUE : earlier.lastHandled) : earlier.stopped;
                    if (end != Long.MIN_VALUE && end - later.started > 0) {
                        found.add(id + ": " + earlier + " overlaps " + later + " by "
                                + (Math.min(end, System.nanoTime()) - later.started) / 1_000_000 + " ms");
                    }
                }
            }
        });
        return found;
    }

    /**
     * The shortest time between the stop of an incarnation and the start of the next one of the same entity on
     * another node: how much room the handover left. Negative if they overlapped.
     *
     * @return the gap in milliseconds, or {@code null} when no entity moved between nodes
     */
    public Long shortestHandoverGapMillis() {
        Long shortest = null;
        for (List<Life> list : lives.values()) {
            List<Life> sorted = new ArrayList<>(list);
            sorted.sort(Comparator.comparingLong(l -> l.started));
            for (int i = 1; i < sorted.size(); i++) {
                Life earlier = sorted.get(i - 1);
                Life later = sorted.get(i);
                if (!earlier.node.equals(later.node) && earlier.stopped != Long.MAX_VALUE) {
                    long gap = (later.started - earlier.stopped) / 1_000_000;
                    shortest = shortest == null ? gap : Math.min(shortest, gap);
                }
            }
        }
        return shortest;
    }

    /**
     * How many incarnations were recorded.
     *
     * @return the count
     */
    public int incarnations() {
        return lives.values().stream().mapToInt(List::size).sum();
    }
}
