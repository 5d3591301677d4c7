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
        return new Factory(name, count, process, null).type();
    }

    /**
     * The entity type of a daemon process, its workers given the node they run on (for processes of the runtime's own,
     * such as projections, that read the node's store and entity types).
     *
     * @param type a type made by {@link #type}
     * @param host the node
     * @return the type, for this node only
     * @throws IllegalArgumentException when the process does not fit the node (a projection of an unknown type)
     */
    static EntityType<?> boundTo(EntityType<?> type, DaemonHost host) {
        Factory f = (Factory) type.factory();
        if (f.process instanceof HostedProcess hosted) {
            hosted.check(host, f.count);
        }
        return new Factory(f.name, f.count, f.process, host).type().withName(type.name());
    }

    /** A daemon process of the runtime's own, which needs the node it runs on. */
    interface HostedProcess extends DaemonProcess {

        /**
         * Checks, when the node is built, that the process fits it.
         *
         * @param host the node
         * @param count how many workers
         * @throws IllegalArgumentException when it does not
         */
        void check(DaemonHost host, int count);
    }

    /** The node as the workers of its daemon processes see it. */
    interface DaemonHost {

        /** {@return the node's store} */
        dev.sharding.spi.ShardingStore store();

        /** {@return whether the node runs: false once it stopped or crashed, when its workers' threads end too} */
        boolean running();

        /** {@return where the node's counts go} */
        dev.sharding.spi.ShardingMetrics metrics();

        /**
         * An event-sourced entity type of the node.
         *
         * @param typeName its name
         * @return its events' codec and its number of shards
         * @throws IllegalArgumentException when the node runs no such type, or it is not event-sourced
         */
        SourceType source(String typeName);
    }

    /**
     * An event-sourced entity type as a projection reads it.
     *
     * @param events its events' codec
     * @param numberOfShards its number of shards
     */
    record SourceType(dev.sharding.internal.codec.EventCodec events, int numberOfShards) {}

    /** Makes the workers of one process. */
    private static final class Factory implements EntityFactory<DaemonWorker> {

        private final String name;

        private final int count;

        private final DaemonProcess process;

        private final @org.jspecify.annotations.Nullable DaemonHost host;

        Factory(String name, int count, DaemonProcess process, @org.jspecify.annotations.Nullable DaemonHost host) {
            this.name = name;
            this.count = count;
            this.process = process;
            this.host = host;
        }

        EntityType<DaemonWorker> type() {
            return EntityType.of(DaemonWorker.class, this, (id, shards) -> indexOf(id, shards))
                    .withName(name)
                    .withNumberOfShards(count);
        }

        @Override
        public DaemonWorker create(EntityContext context) {
            int index = indexOf(context.entityId(), count);
            Context ctx = new Context(name, index, count, context.nodeName(), host);
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

    /**
     * What a daemon process's entity type runs.
     *
     * @param count how many workers
     * @param projectionOf for a projection, the event-sourced type it reads, else {@code null}
     */
    record Described(
            int count, @org.jspecify.annotations.Nullable String projectionOf) {}

    /** What an entity type runs, or {@code null} when it is not a daemon process's. */
    static @org.jspecify.annotations.Nullable Described describe(EntityType<?> type) {
        if (!(type.factory() instanceof Factory f)) {
            return null;
        }
        return new Described(f.count, f.process instanceof ProjectionProcess p ? p.sourceType() : null);
    }

    /** Whether an entity type runs a daemon process. */
    static boolean isDaemon(EntityType<?> type) {
        return type.entityClass() == DaemonWorker.class;
    }

    /**
     * Which worker is started, and where.
     *
     * @param host the node, for processes of the runtime's own; {@code null} for a type not bound to a node
     */
    record Context(
            String name,
            int index,
            int count,
            String nodeName,
            @org.jspecify.annotations.Nullable DaemonHost host) implements DaemonProcess.DaemonContext {}
}
