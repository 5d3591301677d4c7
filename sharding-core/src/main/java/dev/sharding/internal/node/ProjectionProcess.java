package dev.sharding.internal.node;

import dev.sharding.JdbcProjectionHandler;
import dev.sharding.ProjectionHandler;
import dev.sharding.store.JdbcShardingStore;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A projection as a daemon process: worker {@code i} of {@code slices} follows the events of slice {@code i} of its
 * entity type (an equal range of its shards) with a {@link ProjectionWorker}.
 */
public final class ProjectionProcess implements DaemonWorker.HostedProcess {

    private final String name;

    private final String sourceType;

    private final @Nullable ProjectionHandler handler;

    private final @Nullable JdbcProjectionHandler jdbcHandler;

    /**
     * A projection.
     *
     * @param name its name, which its offsets are saved under
     * @param sourceType the event-sourced entity type it reads
     * @param handler its at-least-once handler, or {@code null}
     * @param jdbcHandler its exactly-once handler, or {@code null}
     */
    public ProjectionProcess(
            String name,
            String sourceType,
            @Nullable ProjectionHandler handler,
            @Nullable JdbcProjectionHandler jdbcHandler) {
        this.name = Objects.requireNonNull(name, "name");
        this.sourceType = Objects.requireNonNull(sourceType, "sourceType");
        if ((handler == null) == (jdbcHandler == null)) {
            throw new IllegalArgumentException("A projection has one handler");
        }
        this.handler = handler;
        this.jdbcHandler = jdbcHandler;
    }

    /** {@return the event-sourced entity type it reads} */
    String sourceType() {
        return sourceType;
    }

    /** The first shard of slice {@code slice} of {@code count} over {@code shards} shards. */
    static int firstShard(int slice, int count, int shards) {
        return slice * shards / count;
    }

    /** The last shard of slice {@code slice} of {@code count} over {@code shards} shards. */
    static int lastShard(int slice, int count, int shards) {
        return (slice + 1) * shards / count - 1;
    }

    @Override
    public void check(DaemonWorker.DaemonHost host, int count) {
        DaemonWorker.SourceType source = host.source(sourceType);
        if (count > source.numberOfShards()) {
            throw new IllegalArgumentException("Projection " + name + " has " + count + " slices, more than the "
                    + source.numberOfShards() + " shards of " + sourceType + ": a slice is a range of shards");
        }
        if (jdbcHandler != null && !(host.store() instanceof JdbcShardingStore)) {
            throw new IllegalArgumentException("Projection " + name + " writes in the JDBC store's transactions"
                    + " (Projection.ofJdbc), but the node's store is a "
                    + host.store().getClass().getName()
                    + ": register it only on nodes whose store is the JDBC store (with Spring Boot, leave its bean"
                    + " out when sharding.store.type=memory, which @AutoConfigureShardingTest sets unless its"
                    + " store is Store.APPLICATION), or make it a Projection.of");
        }
    }

    @Override
    public AutoCloseable start(DaemonContext context) {
        DaemonWorker.DaemonHost host = Objects.requireNonNull(
                ((DaemonWorker.Context) context).host(), "a projection runs on a node's daemon process");
        DaemonWorker.SourceType source = host.source(sourceType);
        int shards = source.numberOfShards();
        int slice = context.index();
        int first = firstShard(slice, context.count(), shards);
        int last = lastShard(slice, context.count(), shards);
        ProjectionWorker worker =
                new ProjectionWorker(name, slice, sourceType, first, last, source.events(), host, handler, jdbcHandler);
        worker.start();
        return worker;
    }
}
