package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's allocation table, changed in place and only by {@link Event}s. {@link #apply(Event)} checks each
 * event against the table before it changes anything and throws, printing the whole table, when the event does not
 * fit: allocation logic is testable without a network, and a broken invariant shows at once.
 *
 * <p>An event costs the same whatever the size of the table (a shard's home and its region's set are updated where
 * they are; nothing is copied), so a coordinator's work per allocation does not grow with the number of shards, and a
 * rebuild's grows with the shards reported, not with the members times the shards. What it hands out ({@link
 * #types()}, {@link TypeTable#regions()}, {@link TypeTable#homes()}) are read-only views of the table as it is: they
 * change with it, and must not be iterated across an event. Control thread only.
 */
public final class ShardTable {

    private final Map<String, TypeTable> types = new TreeMap<>();

    private final Map<String, TypeTable> typesView = Collections.unmodifiableMap(types);

    /** The table of one type: its hosting regions with their shards, its proxies and each allocated shard's home. */
    public static final class TypeTable {

        private final int numberOfShards;

        private final Map<Member, Set<Integer>> regions = new TreeMap<>();

        /** The same regions, each with a read-only view of its shards. */
        private final Map<Member, Set<Integer>> regionViews = new TreeMap<>();

        private final Map<Member, Set<Integer>> regionsView = Collections.unmodifiableMap(regionViews);

        private final Set<Member> proxies = new TreeSet<>();

        private final Set<Member> proxiesView = Collections.unmodifiableSet(proxies);

        private final Map<Integer, Member> homes = new TreeMap<>();

        private final Map<Integer, Member> homesView = Collections.unmodifiableMap(homes);

        private TypeTable(int numberOfShards) {
            this.numberOfShards = numberOfShards;
        }

        /** The type's number of shards (from its first region). */
        public int numberOfShards() {
            return numberOfShards;
        }

        /** Members hosting the type, with their shards (possibly none): a read-only view. */
        public Map<Member, Set<Integer>> regions() {
            return regionsView;
        }

        /** Members that only route the type: a read-only view. */
        public Set<Member> proxies() {
            return proxiesView;
        }

        /** Each allocated shard's member: a read-only view. */
        public Map<Integer, Member> homes() {
            return homesView;
        }

        private void addRegion(Member member) {
            Set<Integer> shards = new TreeSet<>();
            regions.put(member, shards);
            regionViews.put(member, Collections.unmodifiableSet(shards));
        }

        private void removeRegion(Member member) {
            regions.remove(member);
            regionViews.remove(member);
        }

        @Override
        public String toString() {
            return "{shards " + numberOfShards + ", regions " + regions + ", proxies " + proxies + ", homes " + homes
                    + "}";
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
     * Changes the table by an event.
     *
     * @param event the event
     * @throws IllegalStateException if the event does not fit the table; the table is then unchanged
     */
    public void apply(Event event) {
        change(event);
    }

    /**
     * Changes the table by several events, in order, each checked against the table as the ones before it left it.
     *
     * @param events the events
     * @throws IllegalStateException if an event does not fit; the events before it are undone, so the table is then
     *     unchanged
     */
    public void applyAll(List<? extends Event> events) {
        Deque<Runnable> undo = new ArrayDeque<>();
        try {
            for (Event event : events) {
                undo.push(change(event));
            }
        } catch (IllegalStateException e) {
            undo.forEach(Runnable::run); // the latest first
            throw e;
        }
    }

    /** Forgets every type: the table is empty again. */
    public void clear() {
        types.clear();
    }

    /** Changes the table by one event after checking it, and returns what undoes the change. */
    private Runnable change(Event event) {
        if (event instanceof RegionRegistered e) {
            return register(e);
        } else if (event instanceof ShardAllocated e) {
            return allocate(e);
        } else if (event instanceof ShardDeallocated e) {
            return deallocate(e);
        } else {
            return remove(((MemberRemoved) event).member());
        }
    }

    private Runnable register(RegionRegistered e) {
        TypeTable t = types.get(e.typeName());
        if (t == null) {
            TypeTable created = new TypeTable(e.numberOfShards());
            types.put(e.typeName(), created);
            register(created, e); // a new table: undone by removing it
            return () -> types.remove(e.typeName());
        }
        check(
                t.numberOfShards == e.numberOfShards(),
                "Region of %s on %s has %d shards, not %d",
                e.typeName(),
                e.member(),
                e.numberOfShards(),
                t.numberOfShards);
        return register(t, e);
    }

    private Runnable register(TypeTable t, RegionRegistered e) {
        Member m = e.member();
        if (e.proxyOnly()) {
            check(!t.regions.containsKey(m), "Member %s hosts %s, cannot become a proxy", m, e.typeName());
            return t.proxies.add(m) ? () -> t.proxies.remove(m) : () -> {};
        }
        check(!t.proxies.contains(m), "Member %s is a proxy of %s, cannot host", m, e.typeName());
        if (t.regions.containsKey(m)) {
            return () -> {};
        }
        t.addRegion(m);
        return () -> t.removeRegion(m);
    }

    private Runnable allocate(ShardAllocated e) {
        TypeTable t = present(types.get(e.typeName()), "Shard %d of unknown type %s", e.shardId(), e.typeName());
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
        return () -> {
            shards.remove(e.shardId());
            t.homes.remove(e.shardId());
        };
    }

    private Runnable deallocate(ShardDeallocated e) {
        TypeTable t = present(types.get(e.typeName()), "Shard %d of unknown type %s", e.shardId(), e.typeName());
        Member home = present(t.homes.get(e.shardId()), "Shard [%d] of %s is not allocated", e.shardId(), e.typeName());
        Set<Integer> shards = t.regions.get(home);
        if (shards != null) {
            shards.remove(e.shardId());
        }
        t.homes.remove(e.shardId());
        return () -> {
            if (shards != null) {
                shards.add(e.shardId());
            }
            t.homes.put(e.shardId(), home);
        };
    }

    private Runnable remove(Member member) {
        Deque<Runnable> undo = new ArrayDeque<>();
        types.values().forEach(t -> {
            Set<Integer> lost = t.regions.get(member);
            if (lost != null) {
                t.removeRegion(member);
                lost.forEach(t.homes::remove);
                undo.push(() -> {
                    t.regions.put(member, lost);
                    t.regionViews.put(member, Collections.unmodifiableSet(lost));
                    lost.forEach(shard -> t.homes.put(shard, member));
                });
            }
            if (t.proxies.remove(member)) {
                undo.push(() -> t.proxies.add(member));
            }
        });
        return () -> undo.forEach(Runnable::run);
    }

    /** The value, or an IllegalStateException saying why it should be there. */
    private <V> V present(@Nullable V value, String format, @Nullable Object... args) {
        check(value != null, format, args);
        return Objects.requireNonNull(value);
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
        TypeTable t = types.get(typeName);
        return t == null ? null : t.homes.get(shardId);
    }

    /**
     * The table of a type.
     *
     * @param typeName the type
     * @return the table, or {@code null} if no region of it registered
     */
    public @Nullable TypeTable type(String typeName) {
        return types.get(typeName);
    }

    /** Every type's table, by name: a read-only view. */
    public Map<String, TypeTable> types() {
        return typesView;
    }

    /** Whether the table has no type at all (none registered since it was made or cleared). */
    public boolean isEmpty() {
        return types.isEmpty();
    }

    @Override
    public String toString() {
        return "ShardTable" + types;
    }
}
