package dev.sharding.internal;

import dev.sharding.EntityContext;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.protocol.FailureKind;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One live entity: its instance and its mailbox. The mailbox is drained by at most one task at a time on the shared
 * entity executor, up to {@link #THROUGHPUT} messages per run, so the entity sees one message at a time in arrival
 * order with no lock. A handler that returns an unfinished {@link CompletionStage} suspends the mailbox until it
 * completes.
 *
 * <p>The instance is created on the first message (on an entity thread) and destroyed by a stop signal, after the
 * messages before it.
 */
final class EntityCell implements Runnable, EntityContext {

    private static final Logger log = LoggerFactory.getLogger(EntityCell.class);

    static final int THROUGHPUT = 32;

    private static final int IDLE = 0;

    private static final int SCHEDULED = 1;

    private final Shard shard;

    private final String entityId;

    private final ConcurrentLinkedQueue<Delivery> mailbox = new ConcurrentLinkedQueue<>();

    private final AtomicInteger state = new AtomicInteger(IDLE);

    private @Nullable Object instance;

    private volatile boolean stopped;

    EntityCell(Shard shard, String entityId) {
        this.shard = shard;
        this.entityId = entityId;
    }

    void enqueue(Delivery delivery) {
        mailbox.offer(delivery);
        if (state.get() == IDLE && state.compareAndSet(IDLE, SCHEDULED)) {
            shard.region().executor().execute(this);
        }
    }

    boolean isStopped() {
        return stopped;
    }

    /**
     * Marks the entity stopped while a handler may still run on it: later messages fail. The instance is destroyed
     * when the stop signal is reached.
     */
    void forceStop() {
        stopped = true;
    }

    @Override
    public void run() {
        for (int i = 0; i < THROUGHPUT; i++) {
            Delivery d = mailbox.poll();
            if (d == null) {
                break;
            }
            if (!process(d)) {
                return; // suspended until an async reply completes; it reschedules this cell
            }
        }
        state.set(IDLE);
        if (!mailbox.isEmpty() && state.compareAndSet(IDLE, SCHEDULED)) {
            shard.region().executor().execute(this);
        }
    }

    /** Handles one delivery; false when the mailbox must wait for an async handler. */
    private boolean process(Delivery d) {
        if (d.message() instanceof StopSignal stop) {
            stopInstance();
            stop.done().run();
            return true;
        }
        ReplySink sink = d.sink();
        if (stopped) {
            sink.fail(FailureKind.UNAVAILABLE, "ShardingException",
                    "Entity [" + typeName() + "/" + entityId + "] stopped before handling the message");
            return true;
        }
        Region<?> region = shard.region();
        Object entity = instance;
        if (entity == null) {
            try {
                entity = region.type().factory().create(this);
                instance = entity;
            } catch (Throwable t) {
                rethrowFatal(t);
                log.warn("Creating entity [{}/{}] failed", typeName(), entityId, t);
                sink.fail(FailureKind.ENTITY_FAILED, t.getClass().getName(), "creation failed: " + t.getMessage());
                return true;
            }
        }
        Object result;
        try {
            result = region.handlers().invoke(entity, d.message());
        } catch (UnhandledMessageException e) {
            if (sink.isTell()) {
                log.warn("Dropped a tell: {}", e.getMessage());
            }
            sink.fail(FailureKind.UNHANDLED, e.getClass().getName(), e.getMessage());
            return true;
        } catch (Throwable t) {
            rethrowFatal(t);
            failed(sink, t);
            return true;
        }
        if (result instanceof CompletionStage<?> stage) {
            CompletableFuture<?> f = stage.toCompletableFuture();
            if (f.isDone()) {
                complete(sink, f);
                return true;
            }
            f.whenComplete((v, t) -> {
                complete(sink, f);
                region.executor().execute(this);
            });
            return false;
        }
        sink.reply(result);
        return true;
    }

    private void complete(ReplySink sink, CompletableFuture<?> f) {
        Object value;
        try {
            value = f.join();
        } catch (Throwable t) {
            Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                    ? t.getCause() : t;
            failed(sink, cause);
            return;
        }
        sink.reply(value);
    }

    private void failed(ReplySink sink, Throwable t) {
        if (sink.isTell()) {
            log.warn("Entity [{}/{}] failed handling a tell", typeName(), entityId, t);
        } else if (log.isDebugEnabled()) {
            log.debug("Entity [{}/{}] failed handling an ask", typeName(), entityId, t);
        }
        sink.fail(FailureKind.ENTITY_FAILED, t.getClass().getName(), t.getMessage());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void stopInstance() {
        stopped = true;
        Object entity = instance;
        if (entity == null) {
            return;
        }
        instance = null;
        try {
            ((dev.sharding.spi.EntityFactory) shard.region().type().factory()).destroy(entity);
        } catch (Throwable t) {
            rethrowFatal(t);
            log.warn("Stopping entity [{}/{}] failed", typeName(), entityId, t);
        }
    }

    private static void rethrowFatal(Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e;
        }
    }

    @Override
    public String typeName() {
        return shard.region().typeName();
    }

    @Override
    public String entityId() {
        return entityId;
    }

    @Override
    public int shardId() {
        return shard.shardId();
    }

    @Override
    public String nodeName() {
        return shard.region().nodeName();
    }

    @Override
    public String toString() {
        return "Entity[" + typeName() + "/" + entityId + "]";
    }

    /** One message and where its outcome goes. */
    record Delivery(Object message, ReplySink sink) {
    }

    /** Tells the cell to stop after the messages before it. */
    record StopSignal(Runnable done) {
    }
}
