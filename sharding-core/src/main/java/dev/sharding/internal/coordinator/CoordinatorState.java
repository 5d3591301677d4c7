package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's allocation table, as an immutable value changed only by {@link Event}s. {@link #apply(Event)}
 * checks each event against the table and throws, printing the whole state, when it does not fit: allocation logic
 * is testable without a network, and a broken invariant shows at once.
 *
 * @param types the table per entity type
 */
public record CoordinatorState(Map<String, TypeState> types) {

    /** The empty table. */
    public static final CoordinatorState EMPTY = new CoordinatorState(Map.of());

    /**
     * Checks and copies.
     */
    public CoordinatorState {
        types = Map.copyOf(types);
    }

    /**
     * The table of one type.
     *
     * @param numberOfShards the type's number of shards (from its first region)
     * @param regions members hosting the type, with their shards (possibly none)
     * @param proxies members that only route the type
     * @param homes each allocated shard's member
     */
    public record TypeState(
            int numberOfShards, Map<Member, Set<Integer>> regions, Set<Member> proxies, Map<Integer, Member> homes) {

        /**
         * Copies.
         */
        public TypeState {
            Map<Member, Set<Integer>> r = new TreeMap<>();
            regions.forEach((m, s) -> r.put(m, Collections.unmodifiableSet(new TreeSet<>(s))));
            regions = Collections.unmodifiableMap(r);
            proxies = Set.copyOf(proxies);
            homes = Collections.unmodifiableMap(new TreeMap<>(homes));
        }
    }

    /** What changes the table. */
    public sealed interface Event permits RegionRegistered, ShardAllocated, ShardDeallocated, MemberRemoved {}

    /**
     * A member runs a region of a type.
     *
     * @param member the member
     * @param typeName the type
     * @param numberOfShards its number of shards there
     * @param proxyOnly whether it only routes
     */
    public record RegionRegistered(Member member, String typeName, int numberOfShards, boolean proxyOnly)
            implements Event {}

    /**
     * A shard now lives on a member.
     *
     * @param typeName the type
     * @param shardId the shard
     * @param member the member, a registered hosting region
     */
    public record ShardAllocated(String typeName, int shardId, Member member) implements Event {}

    /**
     * A shard was handed off and has no home until it is allocated again.
     *
     * @param typeName the type
     * @param shardId the shard
     */
    public record ShardDeallocated(String typeName, int shardId) implements Event {}

    /**
     * A member left the cluster: its regions and shards are gone.
     *
     * @param member the member
     */
    public record MemberRemoved(Member member) implements Event {}

    /**
     * The table after an event.
     *
     * @param event the event
     * @return the new table
     * @throws IllegalStateException if the event does not fit the table
     */
    public CoordinatorState apply(Event event) {
        Map<String, TypeState> next = new HashMap<>(types);
        if (event instanceof RegionRegistered e) {
            TypeState t = types.get(e.typeName());
            if (t == null) {
                t = new TypeState(e.numberOfShards(), Map.of(), Set.of(), Map.of());
            }
            check(
                    t.numberOfShards() == e.numberOfShards(),
                    "Region of %s on %s has %d shards, not %d",
                    e.typeName(),
                    e.member(),
                    e.numberOfShards(),
                    t.numberOfShards());
            Map<Member, Set<Integer>> regions = new HashMap<>(t.regions());
            Set<Member> proxies = new HashSet<>(t.proxies());
            if (e.proxyOnly()) {
                check(
                        !regions.containsKey(e.member()),
                        "Member %s hosts %s, cannot become a proxy",
                        e.member(),
                        e.typeName());
                proxies.add(e.member());
            } else {
                check(
                        !proxies.contains(e.member()),
                        "Member %s is a proxy of %s, cannot host",
                        e.member(),
                        e.typeName());
                regions.putIfAbsent(e.member(), Set.of());
            }
            next.put(e.typeName(), new TypeState(t.numberOfShards(), regions, proxies, t.homes()));
        } else if (event instanceof ShardAllocated e) {
            TypeState t = present(types.get(e.typeName()), "Shard %d of unknown type %s", e.shardId(), e.typeName());
            check(
                    e.shardId() >= 0 && e.shardId() < t.numberOfShards(),
                    "Shard %d of %s out of range",
                    e.shardId(),
                    e.typeName());
            check(
                    t.regions().containsKey(e.member()),
                    "Shard %d of %s allocated to %s, which hosts no region",
                    e.shardId(),
                    e.typeName(),
                    e.member());
            check(
                    !t.homes().containsKey(e.shardId()),
                    "Shard [%d] of %s already allocated: %s",
                    e.shardId(),
                    e.typeName(),
                    t.homes().get(e.shardId()));
            Map<Member, Set<Integer>> regions = new HashMap<>(t.regions());
            Set<Integer> shards = new HashSet<>(regions.get(e.member()));
            shards.add(e.shardId());
            regions.put(e.member(), shards);
            Map<Integer, Member> homes = new HashMap<>(t.homes());
            homes.put(e.shardId(), e.member());
            next.put(e.typeName(), new TypeState(t.numberOfShards(), regions, t.proxies(), homes));
        } else if (event instanceof ShardDeallocated e) {
            TypeState t = present(types.get(e.typeName()), "Shard %d of unknown type %s", e.shardId(), e.typeName());
            Member home =
                    present(t.homes().get(e.shardId()), "Shard [%d] of %s is not allocated", e.shardId(), e.typeName());
            Map<Member, Set<Integer>> regions = new HashMap<>(t.regions());
            Set<Integer> shards = new HashSet<>(regions.get(home));
            shards.remove(e.shardId());
            regions.put(home, shards);
            Map<Integer, Member> homes = new HashMap<>(t.homes());
            homes.remove(e.shardId());
            next.put(e.typeName(), new TypeState(t.numberOfShards(), regions, t.proxies(), homes));
        } else if (event instanceof MemberRemoved e) {
            for (Map.Entry<String, TypeState> entry : types.entrySet()) {
                TypeState t = entry.getValue();
                Map<Member, Set<Integer>> regions = new HashMap<>(t.regions());
                Set<Integer> lost = regions.remove(e.member());
                Set<Member> proxies = new HashSet<>(t.proxies());
                proxies.remove(e.member());
                Map<Integer, Member> homes = new HashMap<>(t.homes());
                if (lost != null) {
                    lost.forEach(homes::remove);
                }
                next.put(entry.getKey(), new TypeState(t.numberOfShards(), regions, proxies, homes));
            }
        }
        return new CoordinatorState(next);
    }

    /** The value, or an IllegalStateException saying why it should be there. */
    private <V> V present(@Nullable V value, String format, @Nullable Object... args) {
        check(value != null, format, args);
        return java.util.Objects.requireNonNull(value);
    }

    private void check(boolean ok, String format, @Nullable Object... args) {
        if (!ok) {
            throw new IllegalStateException(String.format(format, args) + " in state " + this);
        }
    }

    /**
     * The home of a shard.
     *
     * @param typeName the type
     * @param shardId the shard
     * @return the member hosting it, or {@code null} if unallocated
     */
    public @Nullable Member home(String typeName, int shardId) {
        TypeState t = types.get(typeName);
        return t == null ? null : t.homes().get(shardId);
    }

    /**
     * The table of a type.
     *
     * @param typeName the type
     * @return the table, or {@code null} if no region of it registered
     */
    public @Nullable TypeState type(String typeName) {
        return types.get(typeName);
    }
}
