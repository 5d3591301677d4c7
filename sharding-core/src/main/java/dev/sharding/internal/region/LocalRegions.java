package dev.sharding.internal.region;

import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.RegionStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The regions of one node, one per entity type, with the handler of each region's control messages. Filled while the
 * node is built and fixed from then on, so any thread may read it.
 */
public final class LocalRegions {

    private final MemberProfile profile;

    private final Map<String, Region<?>> regions = new LinkedHashMap<>();

    private final Map<String, RegionCommands> commands = new HashMap<>();

    /** @param profile what this node says of itself with its regions */
    public LocalRegions(MemberProfile profile) {
        this.profile = profile;
    }

    /** What this node says of itself with its regions: application version and roles. */
    public MemberProfile profile() {
        return profile;
    }

    /** Adds a region while the node is built. */
    public void add(Region<?> region, RegionCommands handler) {
        if (regions.containsKey(region.typeName())) {
            throw new IllegalArgumentException("Entity type " + region.typeName() + " is registered twice");
        }
        regions.put(region.typeName(), region);
        commands.put(region.typeName(), handler);
    }

    /** The region of a type, or {@code null} for a type this node does not know. */
    @Nullable
    public Region<?> get(String typeName) {
        return regions.get(typeName);
    }

    /** The handler of a region's control messages, or {@code null} for a type this node does not know. */
    @Nullable
    public RegionCommands commands(String typeName) {
        return commands.get(typeName);
    }

    /** Every region, in the order of the types. */
    public Collection<Region<?>> all() {
        return regions.values();
    }

    /** The regions by type name, unmodifiable. */
    public Map<String, Region<?>> byType() {
        return Collections.unmodifiableMap(regions);
    }

    /** Whether any region knows the home of any shard (shards have been placed in the cluster). */
    public boolean anyShardHomeKnown() {
        for (Region<?> r : regions.values()) {
            if (r.anyShardHomeKnown()) {
                return true;
            }
        }
        return false;
    }

    /** The type names. */
    public Set<String> typeNames() {
        return Collections.unmodifiableSet(regions.keySet());
    }

    /** What each region hosts and whether it may host, as reported to the coordinator. */
    public List<RegionInfo> infos() {
        List<RegionInfo> infos = new ArrayList<>(regions.size());
        for (Region<?> r : regions.values()) {
            infos.add(r.hosting().info());
        }
        return infos;
    }

    /** Whether no region hosts a shard. */
    public boolean hostNothing() {
        return regions.values().stream().allMatch(r -> r.hostedShards() == 0);
    }

    /** Each region's passivations and entity counts per shard, for cluster statistics. */
    public List<RegionStats.TypeStats> stats() {
        List<RegionStats.TypeStats> list = new ArrayList<>();
        for (Region<?> r : regions.values()) {
            list.add(new RegionStats.TypeStats(r.typeName(), r.proxyOnly(), r.passivations(), r.entityCounts()));
        }
        return list;
    }
}
