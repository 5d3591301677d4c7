package dev.sharding.internal.node;

import dev.sharding.DaemonProcess;
import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.spi.EntityFactory;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entity that runs one worker of a sharded daemon process ({@link dev.sharding.ShardedDaemonProcess}): entity
 * id {@code "i"} lives in shard {@code i}, is remembered (so that it starts again wherever its shard goes), starts its
 * worker when it is created and stops it when it is destroyed. It takes only keep-alives.
 */
public final class DaemonWorker {

    private static final Logger log = LoggerFactory.getLogger(DaemonWorker.class);

    /** The most workers of one process. */
    static final int MAX_COUNT = 1000;

    /** A message that starts the worker if it is not alive; it does nothing else. */
    public record KeepAlive() {}

    static final KeepAlive KEEP_ALIVE = new KeepAlive();

    private final AutoCloseable running;

    private final String name;

    private DaemonWorker(AutoCloseable running, String name) {
        this.running = running;
        this.name = name;
    }

    /**
     * Keeps the worker alive: nothing to do.
     *
     * @param keepAlive the keep-alive
     */
    @EntityHandler
    public void on(KeepAlive keepAlive) {}

    /**
     * The entity type of a daemon process ({@link dev.sharding.ShardedDaemonProcess#of}).
     *
     * @param name its name
     * @param count how many workers
     * @param process what each runs
     * @return the type
     */
    public static EntityType<DaemonWorker> type(String name, int count, DaemonProcess process) {
        Objects.requireNonNull(process, "process");
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException(
                    "A daemon process has 1 to " + MAX_COUNT + " workers, not " + count + " (" + name + ")");
        }
        EntityFactory<DaemonWorker> factory = new EntityFactory<>() {
            @Override
            public DaemonWorker create(EntityContext context) {
                int index = indexOf(context.entityId(), count);
                Context ctx = new Context(name, index, count, context.nodeName());
                try {
                    AutoCloseable handle = Objects.requireNonNull(process.start(ctx), "the worker's handle");
                    log.info("Started worker {} of daemon process {} on {}", index, name, context.nodeName());
                    return new DaemonWorker(handle, name + "/" + index);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(
                            "Worker " + index + " of daemon process " + name + " did not start: " + e, e);
                }
            }

            @Override
            public void destroy(DaemonWorker worker) {
                try {
                    worker.running.close();
                    log.info("Stopped worker {} of daemon process", worker.name);
                } catch (Exception e) {
                    log.warn("Worker {} of daemon process did not stop cleanly: {}", worker.name, e.toString());
                }
            }
        };
        return EntityType.of(DaemonWorker.class, factory, (id, shards) -> indexOf(id, shards))
                .withName(name)
                .withNumberOfShards(count);
    }

    /** The index an entity id names: only "0" to count - 1 are workers. */
    static int indexOf(String entityId, int count) {
        int index;
        try {
            index = Integer.parseInt(entityId);
        } catch (NumberFormatException e) {
            index = -1;
        }
        if (index < 0 || index >= count || !entityId.equals(Integer.toString(index))) {
            throw new IllegalArgumentException(
                    "The workers of a daemon process are named 0 to " + (count - 1) + ", not '" + entityId + "'");
        }
        return index;
    }

    /** Whether an entity type runs a daemon process. */
    static boolean isDaemon(EntityType<?> type) {
        return type.entityClass() == DaemonWorker.class;
    }

    private record Context(String name, int index, int count, String nodeName) implements DaemonProcess.DaemonContext {}
}
