package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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
        return applyAll(List.of(event));
    }

    /**
     * The table after several events, in order, each checked against the table as the ones before it left it. The
     * tables of the types they touch are copied once for all of them, not once per event: a coordinator rebuilding
     * its table from a member's report of hundreds of shards pays for one copy, not hundreds.
     *
     * @param events the events
     * @return the new table
     * @throws IllegalStateException if an event does not fit; the table is then unchanged
     */
    public CoordinatorState applyAll(List<? extends Event> events) {
        if (events.isEmpty()) {
            return this;
        }
        Changes changes = new Changes();
        for (Event event : events) {
            changes.apply(event);
        }
        return changes.result();
    }

    /** The types an {@link #applyAll} touched, copied once and changed in place; the others stay as they are. */
    private final class Changes {

        private final Map<String, Changing> touched = new HashMap<>();

        /** A type's table being changed. */
        private static final class Changing {
            final int numberOfShards;
            final Map<Member, Set<Integer>> regions = new HashMap<>();
            final Set<Member> proxies;
            final Map<Integer, Member> homes;

            Changing(TypeState t) {
                numberOfShards = t.numberOfShards();
                t.regions().forEach((m, shards) -> regions.put(m, new HashSet<>(shards)));
                proxies = new HashSet<>(t.proxies());
                homes = new HashMap<>(t.homes());
            }
        }

        private @Nullable Changing type(String typeName) {
            Changing c = touched.get(typeName);
            if (c == null) {
                TypeState t = types.get(typeName);
                if (t != null) {
                    c = new Changing(t);
                    touched.put(typeName, c);
                }
            }
            return c;
        }

        void apply(Event event) {
            if (event instanceof RegionRegistered e) {
                Changing t = type(e.typeName());
                if (t == null) {
                    t = new Changing(new TypeState(e.numberOfShards(), Map.of(), Set.of(), Map.of()));
                    touched.put(e.typeName(), t);
                }
                check(
                        t.numberOfShards == e.numberOfShards(),
                        "Region of %s on %s has %d shards, not %d",
                        e.typeName(),
                        e.member(),
                        e.numberOfShards(),
                        t.numberOfShards);
                if (e.proxyOnly()) {
                    check(
                            !t.regions.containsKey(e.member()),
                            "Member %s hosts %s, cannot become a proxy",
                            e.member(),
                            e.typeName());
                    t.proxies.add(e.member());
                } else {
                    check(
                            !t.proxies.contains(e.member()),
                            "Member %s is a proxy of %s, cannot host",
                            e.member(),
                            e.typeName());
                    t.regions.putIfAbsent(e.member(), new HashSet<>());
                }
            } else if (event instanceof ShardAllocated e) {
                Changing t = present(type(e.typeName()), "Shard %d of unknown type %s", e.shardId(), e.typeName());
                check(
                        e.shardId() >= 0 && e.shardId() < t.numberOfShards,
                        "Shard %d of %s out of range",
                        e.shardId(),
                        e.typeName());
                Set<Integer> shards = present(
                        t.regions.get(e.member()),
                        "Shard %d of %s allocated to %s, which hosts no region",
                        e.shardId(),
                        e.typeName(),
                        e.member());
                check(
                        !t.homes.containsKey(e.shardId()),
                        "Shard [%d] of %s already allocated: %s",
                        e.shardId(),
                        e.typeName(),
                        t.homes.get(e.shardId()));
                shards.add(e.shardId());
                t.homes.put(e.shardId(), e.member());
            } else if (event instanceof ShardDeallocated e) {
                Changing t = present(type(e.typeName()), "Shard %d of unknown type %s", e.shardId(), e.typeName());
                Member home = present(
                        t.homes.get(e.shardId()), "Shard [%d] of %s is not allocated", e.shardId(), e.typeName());
                Set<Integer> shards = t.regions.get(home);
                if (shards != null) {
                    shards.remove(e.shardId());
                }
                t.homes.remove(e.shardId());
            } else if (event instanceof MemberRemoved e) {
                Set<String> names = new HashSet<>(types.keySet());
                names.addAll(touched.keySet());
                for (String typeName : names) {
                    Changing t = java.util.Objects.requireNonNull(type(typeName));
                    Set<Integer> lost = t.regions.remove(e.member());
                    t.proxies.remove(e.member());
                    if (lost != null) {
                        lost.forEach(t.homes::remove);
                    }
                }
            }
        }

        CoordinatorState result() {
            Map<String, TypeState> next = new HashMap<>(types);
            touched.forEach((typeName, t) ->
                    next.put(typeName, new TypeState(t.numberOfShards, t.regions, t.proxies, t.homes)));
            return new CoordinatorState(next);
        }
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
