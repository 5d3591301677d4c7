package dev.sharding.boot.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Keeps checking that every entity has at most one live owner ({@link OwnerCheck}) until closed, every few
 * milliseconds on a thread of its own, and keeps every check that found a duplicate. Made by
 * {@link ShardingTestCluster#watchOwners()}:
 *
 * <pre>{@code
 * try (OwnerWatch watch = cluster.watchOwners()) {
 *     cluster.kill(cluster.node(1));
 *     ... send messages ...
 * }
 * assertThat(watch.violations()).isEmpty();
 * }</pre>
 */
public final class OwnerWatch implements AutoCloseable {

    /** How often the nodes are looked at. */
    private static final long INTERVAL_MILLIS = 10;

    private final List<OwnerCheck> violations = new CopyOnWriteArrayList<>();

    private final Thread thread;

    private volatile boolean closed;

    private final AtomicInteger checks = new AtomicInteger();

    OwnerWatch(Supplier<OwnerCheck> check) {
        this.thread = new Thread(
                () -> {
                    while (!closed) {
                        try {
                            OwnerCheck found = check.get();
                            checks.incrementAndGet();
                            if (!found.isExclusive()) {
                                violations.add(found);
                            }
                        } catch (RuntimeException e) {
                            // a node closing while it was looked at: the next check sees it gone
                        }
                        try {
                            Thread.sleep(INTERVAL_MILLIS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                },
                "sharding-owner-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * The checks so far that found an entity with two live owners or more.
     *
     * @return the checks, oldest first; empty while ownership was exclusive
     */
    public List<OwnerCheck> violations() {
        return new ArrayList<>(violations);
    }

    /**
     * How many checks were made so far.
     *
     * @return the count
     */
    public int checks() {
        return checks.get();
    }

    /** Stops checking, once the check under way has finished. */
    @Override
    public void close() {
        closed = true;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
