package dev.sharding.internal.transport;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The members of the channel's view by their JGroups addresses and back, with the names JGroups knows for them. A
 * member whose name JGroups did not know when it was first seen is named by its UUID until it does; it is looked up
 * again on each view and on each frame from it ({@link #anyUnnamed}).
 *
 * <p>Thread-safe: read by every receiving and sending thread, changed on views and frames.
 */
final class MemberNames {

    private final Map<Address, Member> members = new ConcurrentHashMap<>();

    private final Map<Member, Address> addresses = new ConcurrentHashMap<>();

    /** Members whose name JGroups did not know when they were first seen: named by their UUID until it does. */
    private final Set<Address> unnamed = ConcurrentHashMap.newKeySet();

    /** Whether {@link #unnamed} holds any: read on every frame, so a volatile flag rather than the set. */
    private volatile boolean anyUnnamed;

    /** This node's member, once known. */
    private volatile @Nullable Member self;

    /** Whether a member is still named by its UUID: then each frame looks its name up again. */
    boolean anyUnnamed() {
        return anyUnnamed;
    }

    /** This node's member, or {@code null} before it is known. */
    @Nullable
    Member self() {
        return self;
    }

    /**
     * Remembers this node's address as its member.
     *
     * @param address the channel's address
     * @return the member
     */
    Member self(Address address) {
        Member m = member(address);
        self = m;
        return m;
    }

    /**
     * The address of a member of the view.
     *
     * @param member the member
     * @return its address, or {@code null} if it is not a member now
     */
    @Nullable
    Address address(Member member) {
        return addresses.get(member);
    }

    /**
     * The member at an address, named as JGroups knows it now (by its UUID if it knows no name yet).
     *
     * @param a the address
     * @return the member
     */
    Member member(Address a) {
        Member m = members.get(a);
        if (m != null) {
            return m;
        }
        String name = NameCache.get(a);
        if (a instanceof UUID u) {
            m = new Member(u.getMostSignificantBits(), u.getLeastSignificantBits(), name == null ? a.toString() : name);
        } else {
            throw new ShardingException(
                    "Unsupported JGroups address type " + a.getClass().getName());
        }
        members.put(a, m);
        addresses.put(m, a);
        if (name == null) {
            // named by its UUID until JGroups learns its name: looked up again on each view and frame from it
            synchronized (unnamed) {
                unnamed.add(a);
                anyUnnamed = true;
            }
        }
        return m;
    }

    /**
     * A frame came from a member: if it was named by its UUID and JGroups knows its name now, it is renamed.
     *
     * @param a its address
     * @return true if it was renamed (the view is to be published again)
     */
    boolean learn(Address a) {
        return unnamed.contains(a) && rename(a);
    }

    /**
     * A new view: its members named as JGroups knows them now, and every other member forgotten.
     *
     * @param view the view
     * @return its members, in the view's order
     */
    List<Member> view(View view) {
        for (Address a : view.getMembers()) {
            if (anyUnnamed && unnamed.contains(a)) {
                rename(a);
            }
        }
        List<Member> list = members(view);
        members.keySet().retainAll(view.getMembers());
        addresses.values().retainAll(view.getMembers());
        if (anyUnnamed) {
            synchronized (unnamed) {
                unnamed.retainAll(view.getMembers());
                anyUnnamed = !unnamed.isEmpty();
            }
        }
        return list;
    }

    /**
     * The members of a view, in its order.
     *
     * @param view the view
     * @return the members
     */
    List<Member> members(View view) {
        List<Member> list = new ArrayList<>(view.size());
        for (Address a : view.getMembers()) {
            list.add(member(a));
        }
        return List.copyOf(list);
    }

    /** Gives a member first seen without a name the name JGroups knows now; true if it changed. */
    private boolean rename(Address a) {
        String name = NameCache.get(a);
        if (name == null) {
            return false;
        }
        synchronized (unnamed) {
            Member old = members.get(a);
            unnamed.remove(a);
            anyUnnamed = !unnamed.isEmpty();
            if (old == null || old.name().equals(name)) {
                return false;
            }
            Member named = new Member(old.mostSignificantBits(), old.leastSignificantBits(), name);
            members.put(a, named);
            addresses.remove(old); // an equal key: removed first, so that the map keeps the named one
            addresses.put(named, a);
            if (old.equals(self)) {
                self = named;
            }
            return true;
        }
    }
}
