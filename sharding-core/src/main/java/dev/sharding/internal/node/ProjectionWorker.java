package dev.sharding.internal.node;

import dev.sharding.JdbcProjectionHandler;
import dev.sharding.ProjectedEvent;
import dev.sharding.ProjectionHandler;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.JdbcShardingStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One slice of a projection, on a thread of its own: reads the slice's offset, then pages through the slice's events
 * after it, hands each page to the handler and moves the offset past it (a compare-and-set: an offset another
 * instance moved sends this one back to read it). Caught up, it looks again after {@link #POLL_MILLIS}, and after
 * twice as long each time it finds nothing, up to {@link #IDLE_POLL_MILLIS}: a projection whose events stopped coming
 * costs the store one query a second per slice, not five, and the first event after a quiet spell waits a second at
 * most (Pekko's JDBC and R2DBC projections look every 3 s by default). A failure
 * (the store, the handler, an event that does not decode) is logged, the first and then at powers of two, and the
 * page is tried again after a wait that doubles from 100 ms to 10 s. Closed, it stops after the page in hand.
 */
final class ProjectionWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProjectionWorker.class);

    /** How long a worker that has just caught up waits before it looks for new events. */
    static final long POLL_MILLIS = 200;

    /** The longest a caught-up worker waits between two looks, after finding nothing several times in a row. */
    static final long IDLE_POLL_MILLIS = 1_000;

    /** The most events handed to the handler at once. */
    static final int PAGE = 500;

    private static final long STORE_WAIT_SECONDS = 30;

    private final String name;

    private final int slice;

    private final String typeName;

    private final int firstShard;

    private final int lastShard;

    private final EventCodec events;

    private final ShardingStore store;

    private final DaemonWorker.DaemonHost host;

    private final @Nullable ProjectionHandler handler;

    private final @Nullable JdbcProjectionHandler jdbcHandler;

    private final Thread thread;

    private final ShardingMetrics.ProjectionMetrics metrics;

    private volatile boolean running = true;

    /**
     * Completed by {@link #close()}: ends the worker's waits (between looks, and for the store) without interrupting
     * its thread, which may be in the handler's own database calls: an interrupt inside an embedded H2 database's
     * file I/O closes that database for every user of it in the JVM.
     */
    private final CompletableFuture<Void> stopping = new CompletableFuture<>();

    ProjectionWorker(
            String name,
            int slice,
            String typeName,
            int firstShard,
            int lastShard,
            EventCodec events,
            DaemonWorker.DaemonHost host,
            @Nullable ProjectionHandler handler,
            @Nullable JdbcProjectionHandler jdbcHandler) {
        this.name = name;
        this.slice = slice;
        this.typeName = typeName;
        this.firstShard = firstShard;
        this.lastShard = lastShard;
        this.events = events;
        this.store = host.store();
        this.host = host;
        this.handler = handler;
        this.jdbcHandler = jdbcHandler;
        this.metrics = host.metrics().projection(name, slice);
        this.thread = new Thread(this::run, "sharding-projection-" + name + "-" + slice);
        this.thread.setDaemon(true);
    }

    /** The wait before the next look after one more that found nothing: twice as long, up to the idle wait. */
    static long nextIdleWait(long waited) {
        return Math.min(IDLE_POLL_MILLIS, 2 * waited);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long offset = -1;
        long failures = 0;
        long idleWait = POLL_MILLIS;
        while (running && host.running()) { // a crashed node's workers end with it
            try {
                if (offset < 0) {
                    offset = await(store.projectionOffset(name, slice));
                }
                List<PersistedEvent> page = await(store.eventsBySlice(typeName, firstShard, lastShard, offset, PAGE));
                if (page.isEmpty()) {
                    metrics.caughtUp();
                    pause(idleWait);
                    idleWait = nextIdleWait(idleWait);
                    continue;
                }
                idleWait = POLL_MILLIS;
                List<ProjectedEvent> decoded = new ArrayList<>(page.size());
                for (PersistedEvent e : page) {
                    decoded.add(new ProjectedEvent(
                            e.entityId(),
                            e.sequenceNr(),
                            e.globalOffset(),
                            e.shardId(),
                            events.decode(e),
                            e.tags(),
                            e.writtenAt()));
                }
                long next = page.get(page.size() - 1).globalOffset();
                boolean moved = handle(offset, next, decoded);
                offset = moved ? next : -1;
                if (moved) {
                    Instant last = page.get(page.size() - 1).writtenAt();
                    metrics.handled(page.size(), Math.max(0, System.currentTimeMillis() - last.toEpochMilli()));
                }
                failures = 0;
            } catch (InterruptedException e) {
                break;
            } catch (Exception | AssertionError e) {
                failures++;
                offset = -1;
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                if (running && Long.bitCount(failures) == 1) {
                    log.warn(
                            "Projection {} slice {} failed ({} in a row); trying again: {}",
                            name,
                            slice,
                            failures,
                            cause.toString());
                }
                try {
                    pause(Math.min(10_000, 100L << Math.min(7, failures - 1)));
                } catch (InterruptedException stop) {
                    break;
                }
            }
        }
        metrics.stopped();
    }

    /** Hands a page to the handler and moves the offset; false when another instance moved it first. */
    private boolean handle(long offset, long next, List<ProjectedEvent> page) throws Exception {
        if (jdbcHandler != null) {
            JdbcShardingStore jdbc = (JdbcShardingStore) store;
            return await(jdbc.inProjectionTransaction(name, slice, offset, next, c -> jdbcHandler.handle(c, page)));
        }
        Objects.requireNonNull(handler).handle(page);
        return await(store.saveProjectionOffset(name, slice, offset, next));
    }

    /** Waits for the store, unless the worker stops meanwhile ({@link InterruptedException} then). */
    private <T> T await(CompletableFuture<T> future) throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture.anyOf(future, stopping).get(STORE_WAIT_SECONDS, TimeUnit.SECONDS);
        if (!future.isDone()) {
            throw new InterruptedException("stopping");
        }
        return future.get();
    }

    /** Waits a while, unless the worker stops meanwhile ({@link InterruptedException} then). */
    private void pause(long millis) throws InterruptedException {
        try {
            stopping.get(millis, TimeUnit.MILLISECONDS);
            throw new InterruptedException("stopping");
        } catch (TimeoutException e) {
            // waited
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops after the page in hand, waiting for it at most 10 s. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        stopping.complete(null);
        thread.join(10_000);
    }
}
