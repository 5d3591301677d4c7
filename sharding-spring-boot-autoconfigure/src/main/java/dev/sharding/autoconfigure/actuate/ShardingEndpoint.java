package dev.sharding.autoconfigure.actuate;

import dev.sharding.AdminResult;
import dev.sharding.ClusterState;
import dev.sharding.PassivationStrategy;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code sharding} actuator endpoint: {@code GET /actuator/sharding} describes the whole cluster as this node
 * sees it, gathered from every member (each member's status, the handoffs in progress); {@code GET
 * /actuator/sharding/{type}} describes this node's region of one entity type with the ids of its live entities.
 *
 * <p>Two write operations act on the cluster through its coordinator: {@code POST /actuator/sharding} starts a
 * rebalance round now, and {@code POST /actuator/sharding/{type}} with {@code {"shard": 7, "node": "n2"}} hands off
 * one shard (to the named node, or where the allocation strategy puts it when {@code node} is left out). Both answer
 * with what was done, or with status 400 and the reason: unknown type, shard or node, a handoff already in progress.
 * The endpoint's default access is read-only: the write operations are served only once the application grants
 * it with {@code management.endpoint.sharding.access=unrestricted}.
 *
 * <p>The entity listing of a region is paged ({@code ?offset=0&limit=1000}; at most {@value #MAX_LIMIT} ids per
 * page), so that it is never an unbounded list of every live id.
 */
@Endpoint(id = "sharding", defaultAccess = Access.READ_ONLY)
public class ShardingEndpoint {

    /** The status of a member of the current view. */
    static final String UP = "up";

    /** The status of a member that hands off its shards to leave. */
    static final String LEAVING = "leaving";

    /**
     * The status of a member of the view the coordinator refused for good (another number of shards, another store):
     * it hosts nothing and fails every call made through it.
     */
    static final String REFUSED = "refused";

    /** Entity ids listed per page of a region when the request names no limit. */
    static final int DEFAULT_LIMIT = 1000;

    /** The most entity ids listed per page of a region. */
    static final int MAX_LIMIT = 10_000;

    /** Extra time given to the gathering, beyond the members' answer timeout, before giving up on it. */
    private static final Duration GRACE = Duration.ofSeconds(2);

    private final ShardingNode node;

    private final Duration timeout;

    /**
     * Creates the endpoint.
     *
     * @param node the node to describe
     * @param timeout how long to wait for the members' answers
     */
    public ShardingEndpoint(ShardingNode node, Duration timeout) {
        this.node = node;
        this.timeout = timeout;
    }

    /**
     * Describes the cluster: this node, the coordinator, the members, and per entity type every member's region with
     * its shards and entity counts. Members that did not answer in time are listed with {@code answered=false}.
     *
     * @return the description
     */
    @ReadOperation
    public ClusterDescriptor cluster() {
        if (!this.node.isRunning()) {
            return new ClusterDescriptor(
                    false,
                    new MemberDescriptor(this.node.nodeName(), "", "down", List.of(), "", ""),
                    null,
                    List.of(),
                    Map.of(),
                    List.of(),
                    List.of(),
                    Map.of(),
                    List.of());
        }
        ClusterState state = gather();
        return ClusterDescriptions.describe(state, shardCounts(), daemons(state));
    }

    private Map<String, Integer> shardCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        for (String type : this.node.typeNames()) {
            counts.put(type, this.node.localRegion(type).numberOfShards());
        }
        return counts;
    }

    /**
     * Describes this node's region of one entity type: whether it only routes, and its shards with the ids of their
     * live entities, the first page of them.
     *
     * @param type the entity type name
     * @return the description, or {@code null} (404) for a type this node does not run
     */
    public @Nullable LocalRegionDescriptor region(String type) {
        return region(type, null, null);
    }

    /**
     * Describes this node's region of one entity type: whether it only routes, and its shards with the ids of their
     * live entities, one page of the ids in order of shard and id. Every hosted shard is listed, those whose ids fall
     * outside the page with none.
     *
     * @param type the entity type name
     * @param offset how many ids to skip; 0 when absent
     * @param limit how many ids to list at most; {@value #DEFAULT_LIMIT} when absent, at most {@value #MAX_LIMIT}
     * @return the description, or {@code null} (404) for a type this node does not run
     */
    @ReadOperation
    public @Nullable LocalRegionDescriptor region(
            @Selector String type, @Nullable Integer offset, @Nullable Integer limit) {
        if (!this.node.typeNames().contains(type)) {
            return null;
        }
        int skip = Math.max(0, offset == null ? 0 : offset);
        int take = Math.max(0, Math.min(MAX_LIMIT, limit == null ? DEFAULT_LIMIT : limit));
        List<ShardDescriptor> shards = new ArrayList<>();
        int total = 0;
        for (Map.Entry<Integer, List<String>> e :
                new TreeMap<>(this.node.localRegion(type).entityIds()).entrySet()) {
            int size = e.getValue().size();
            int from = Math.min(size, Math.max(0, skip - total));
            int to = Math.min(size, Math.max(0, skip + take - total));
            List<String> ids =
                    from < to ? e.getValue().stream().sorted().toList().subList(from, to) : List.of();
            shards.add(new ShardDescriptor(e.getKey(), ids));
            total += size;
        }
        return new LocalRegionDescriptor(
                type,
                this.node.nodeName(),
                this.node.localRegion(type).proxyOnly(),
                shards,
                total,
                skip,
                take,
                skip + take < total);
    }

    private List<DaemonProcessDescriptor> daemons(ClusterState state) {
        return await(this.node.admin().daemonProcesses(state), "the daemon processes").stream()
                .map(DaemonProcessDescriptor::of)
                .toList();
    }

    private ClusterState gather() {
        return await(this.node.admin().clusterState(this.timeout), "the cluster state");
    }

    private <T> T await(java.util.concurrent.CompletableFuture<T> gathering, String what) {
        try {
            return gathering.get(this.timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while gathering " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "Gathering " + what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " was not gathered within " + this.timeout.plus(GRACE), e);
        }
    }

    /**
     * Starts a rebalance round now, whatever the rebalance interval.
     *
     * @return what was done (200), or why nothing was (400)
     */
    @WriteOperation
    public WebEndpointResponse<OperationResult> rebalance() {
        return answer(this.node.admin().rebalance());
    }

    /**
     * Hands off one shard, to a named node or where the allocation strategy puts it.
     *
     * @param type the entity type name
     * @param shard the shard id
     * @param node the name of the node to move it to; absent for the allocation strategy's choice
     * @return what was done (200), or why nothing was (400)
     */
    @WriteOperation
    public WebEndpointResponse<OperationResult> handOff(@Selector String type, int shard, @Nullable String node) {
        return answer(this.node.admin().handOff(type, shard, node));
    }

    /**
     * Changes how a type's entities are passivated on this node, while it runs:
     * {@code POST /actuator/sharding/{type}/passivation} with {@code strategy} (idle, least-recently-used,
     * most-recently-used, least-frequently-used) and/or {@code activeEntityLimit} (this type's limit of live entities
     * on this node, 0 for none). A restart goes back to the configuration.
     *
     * @param type the entity type name
     * @param setting {@code passivation}
     * @param strategy the new strategy, or absent to keep it
     * @param activeEntityLimit the new limit, or absent to keep it
     * @return the passivation now (200), or why nothing changed (400)
     */
    @WriteOperation
    public WebEndpointResponse<OperationResult> passivation(
            @Selector String type,
            @Selector String setting,
            @Nullable String strategy,
            @Nullable Integer activeEntityLimit) {
        if (!"passivation".equals(setting)) {
            return refused("Unknown setting '" + setting + "'; POST /actuator/sharding/{type}/passivation");
        }
        if (!this.node.typeNames().contains(type)) {
            return refused("Unknown entity type " + type + "; this node runs " + this.node.typeNames());
        }
        if (strategy == null && activeEntityLimit == null) {
            return refused("Give a strategy, an activeEntityLimit, or both");
        }
        PassivationStrategy parsed = null;
        if (strategy != null) {
            try {
                parsed = PassivationStrategy.valueOf(
                        strategy.trim().replace('-', '_').toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return refused("Unknown passivation strategy '" + strategy
                        + "': idle, least-recently-used, most-recently-used or least-frequently-used");
            }
        }
        if (activeEntityLimit != null && activeEntityLimit < 0) {
            return refused("activeEntityLimit must be 0 (none) or positive, not " + activeEntityLimit);
        }
        this.node.localRegion(type).changePassivation(parsed, activeEntityLimit);
        return new WebEndpointResponse<>(
                new OperationResult(
                        true,
                        "Passivation of " + type + " on " + this.node.nodeName() + ": "
                                + this.node
                                        .localRegion(type)
                                        .passivationStrategy()
                                        .name()
                                        .toLowerCase(java.util.Locale.ROOT)
                                        .replace('_', '-')
                                + ", limit " + this.node.localRegion(type).activeEntityLimit()),
                WebEndpointResponse.STATUS_OK);
    }

    private static WebEndpointResponse<OperationResult> refused(String why) {
        return new WebEndpointResponse<>(new OperationResult(false, why), WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    private WebEndpointResponse<OperationResult> answer(java.util.concurrent.CompletableFuture<AdminResult> future) {
        AdminResult result;
        try {
            result = future.get(this.timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = new AdminResult(false, "Interrupted while waiting for the coordinator");
        } catch (ExecutionException | TimeoutException e) {
            result = new AdminResult(false, "The coordinator did not answer: " + e);
        }
        return new WebEndpointResponse<>(
                new OperationResult(result.accepted(), result.message()),
                result.accepted() ? WebEndpointResponse.STATUS_OK : WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /**
     * The whole cluster as this node sees it.
     *
     * @param running whether this node runs; if not, the other fields are empty
     * @param node this node
     * @param coordinator the member whose coordinator is active, or {@code null} if none is known
     * @param members the members of the current view, oldest first
     * @param entityTypes per entity type name, one region per member
     * @param handoffs shards being moved now, as "type/shard"
     * @param rebalances the coordinator's recent rebalances that moved shards, newest first
     * @param numberOfShards per entity type name this node runs, its number of shards (ids 0 to one less)
     * @param daemonProcesses the sharded daemon processes and projections, by name: where each worker runs and how
     *     far each projection slice has gone
     */
    public record ClusterDescriptor(
            boolean running,
            MemberDescriptor node,
            @Nullable MemberDescriptor coordinator,
            List<MemberDescriptor> members,
            Map<String, List<RegionDescriptor>> entityTypes,
            List<String> handoffs,
            List<RebalanceDescriptor> rebalances,
            Map<String, Integer> numberOfShards,
            List<DaemonProcessDescriptor> daemonProcesses)
            implements OperationResponseBody {}

    /**
     * A recent rebalance that moved shards: a round of the allocation strategy and the rounds that followed it at
     * once, each bounded by the rebalance limits, as the coordinator's log numbers them.
     *
     * @param startedAt when its first round started
     * @param rounds how many rounds it took
     * @param moved how many shards its rounds started moving
     * @param from per node name, how many of the moved shards left it
     * @param to per node name, how many of the moved shards were placed on it so far; the others are still moving
     */
    public record RebalanceDescriptor(
            Instant startedAt, int rounds, int moved, Map<String, Integer> from, Map<String, Integer> to) {}

    /**
     * The answer to a write operation.
     *
     * @param accepted whether the operation started
     * @param message what was done, or why nothing was
     */
    public record OperationResult(boolean accepted, String message) implements OperationResponseBody {}

    /**
     * A member of the cluster.
     *
     * @param name the node name
     * @param id the unique id of its membership
     * @param status {@code up} for members of the current view, {@code leaving} for those handing off their shards
     *     to leave, {@code refused} for those the coordinator refused for good
     * @param roles its roles ({@code sharding.roles}); empty if it has none or did not answer
     * @param appVersion its application version ({@code sharding.app-version}); empty if unversioned or it did not
     *     answer
     * @param refusedReason why the coordinator refused it, naming what differs; empty unless it is refused
     */
    public record MemberDescriptor(
            String name, String id, String status, List<String> roles, String appVersion, String refusedReason) {}

    /**
     * One member's region of one entity type.
     *
     * @param member the member's node name
     * @param answered whether the member answered in time; if not, the other fields are empty
     * @param proxyOnly whether the region only routes
     * @param shardCount how many shards it hosts
     * @param entityCount how many live entities it hosts
     * @param passivations how many entities it passivated since its node started
     * @param shards live entities per hosted shard id
     */
    public record RegionDescriptor(
            String member,
            boolean answered,
            boolean proxyOnly,
            int shardCount,
            int entityCount,
            long passivations,
            Map<Integer, Integer> shards) {}

    /**
     * This node's region of one entity type.
     *
     * @param type the entity type name
     * @param node this node's name
     * @param proxyOnly whether the region only routes
     * @param shards the shards it hosts, by id
     * @param entityCount how many live entities the region hosts in all
     * @param offset how many ids were skipped
     * @param limit the most ids listed
     * @param more whether ids follow this page ({@code offset + limit < entityCount})
     */
    public record LocalRegionDescriptor(
            String type,
            String node,
            boolean proxyOnly,
            List<ShardDescriptor> shards,
            int entityCount,
            int offset,
            int limit,
            boolean more)
            implements OperationResponseBody {}

    /**
     * A shard hosted here.
     *
     * @param id the shard id
     * @param entities the ids of its live entities in this page, sorted
     */
    public record ShardDescriptor(int id, List<String> entities) {}
}
