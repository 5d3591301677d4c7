package dev.sharding.internal.lease;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether a set of members may run, as the split-brain strategy says, against the last stable views. Pure
 * and clock-free: every method takes the time, so it is tested without a network.
 *
 * <h2>The reference views</h2>
 * The decider keeps the views this node installed while it was allowed to run, with their times. A view is stable
 * once it lasted {@code stable-after}. The members of one cluster install each view within a short skew of each other,
 * so two members may disagree whether a view that lasted about {@code stable-after} is stable. To decide the same way
 * whichever of them is right, a side must win against the newest view that is stable beyond doubt (it lasted
 * {@code stable-after} plus the skew) and against every newer view that some member may hold stable (it lasted
 * {@code stable-after} minus the skew); with no view stable beyond doubt (a node that just started), against every
 * view it saw. Two disjoint sides cannot both win against the view they have in common, so at most one
 * side of a split runs. Views installed while the node may not run are not recorded: a losing side that stays apart
 * for long must not become a reference that lets it win later.
 *
 * <h2>The strategies</h2>
 * {@code keep-majority}: more than half of a reference's members, or exactly half including its oldest member.
 * Members that joined after the reference do not count. {@code keep-oldest}: the side with the reference's oldest
 * member; with {@code down-if-alone}, if the oldest is alone and all the others are together, they run instead.
 * {@code static-quorum}: at least {@code quorum-size} members of every reference (members that joined since do not
 * count), or every member of the references (a cluster that lost nobody, while it starts or grows below the quorum);
 * a split of a cluster larger than {@code 2 * quorum-size - 1}, where both sides may hold a quorum, stops every side,
 * as Akka's resolver does. {@code store-lease} and {@code off} let every side
 * run here: the store lease decides the first, and nothing the second.
 */
final class PartitionDecider {

    private final SplitBrainSettings settings;

    private long stableAfterNanos;

    private long skewNanos;

    /** Views installed while allowed to run, oldest first; the last one lasts until {@code endedNanos}, if set. */
    private final List<Entry> history = new ArrayList<>();

    /** When the last recorded view stopped being this node's running view (it lost), or -1 while it still is. */
    private long endedNanos = -1;

    /** Members of the last view installed (winning or not) that said goodbye. */
    private final Set<Member> saidGoodbye = new HashSet<>();

    /** The last view installed, winning or not. */
    private List<Member> lastView = List.of();

    private record Entry(List<Member> members, long installedNanos) {}

    /**
     * Creates a decider.
     *
     * @param settings the strategy and its parameters
     * @param stableAfterNanos how long a view must last to be stable
     * @param skewNanos how far apart in time members may install one view
     */
    PartitionDecider(SplitBrainSettings settings, long stableAfterNanos, long skewNanos) {
        this.settings = settings;
        this.stableAfterNanos = stableAfterNanos;
        this.skewNanos = skewNanos;
    }

    /**
     * Changes how long a view must last to be stable (once the failure detector's timeouts are known).
     *
     * @param stableAfter the new duration
     * @param skew how far apart in time members may install one view
     */
    void stableAfter(long stableAfter, long skew) {
        this.stableAfterNanos = stableAfter;
        this.skewNanos = skew;
    }

    /**
     * A new view was installed: decides whether this node's side may run, and records the view if it may.
     *
     * @param view the members, oldest first
     * @param nowNanos the time
     * @return whether this side may run
     */
    boolean onView(List<Member> view, long nowNanos) {
        forgetLeavers(view);
        boolean wins = wins(view, references(nowNanos));
        if (wins) {
            history.add(new Entry(List.copyOf(view), nowNanos));
            endedNanos = -1;
            trim(nowNanos);
        } else if (endedNanos < 0) {
            endedNanos = nowNanos;
        }
        return wins;
    }

    /**
     * A member says goodbye: when a view comes in which it and only members that said goodbye are gone, they are
     * removed from every reference, so that their going is not taken for a split.
     *
     * <p>Not at once: nodes hear a goodbye at different times, and a partition may come in between. A node that had
     * removed the leaver from its references when the cut came would count a majority of the rest, while the other
     * side, with the leaver still among its members, counts a majority of all: both could run. A view is installed
     * alike by every node that gets it, and one that removes leavers only is no split; a view that also lost a member
     * that said nothing is decided against the references as they were.
     *
     * @param member the member
     */
    void leaving(Member member) {
        saidGoodbye.add(member);
    }

    /** Forgets the members gone since the last view if every one of them said goodbye; keeps the goodbyes of those still there. */
    private void forgetLeavers(List<Member> view) {
        Set<Member> now = new HashSet<>(view);
        List<Member> departed = new ArrayList<>();
        for (Member m : lastView) {
            if (!now.contains(m)) {
                departed.add(m);
            }
        }
        if (!departed.isEmpty() && saidGoodbye.containsAll(departed)) {
            departed.forEach(this::forget);
        }
        saidGoodbye.retainAll(now);
        lastView = List.copyOf(view);
    }

    private void forget(Member member) {
        for (int i = 0; i < history.size(); i++) {
            Entry e = history.get(i);
            if (e.members().contains(member)) {
                List<Member> rest = new ArrayList<>(e.members());
                rest.remove(member);
                history.set(i, new Entry(List.copyOf(rest), e.installedNanos()));
            }
        }
    }

    /**
     * The views a side must win against now: from the newest recorded back to the first stable beyond doubt.
     *
     * @param nowNanos the time
     * @return the views, newest first; empty before the first view
     */
    List<List<Member>> references(long nowNanos) {
        List<List<Member>> refs = new ArrayList<>();
        for (int i = history.size() - 1; i >= 0; i--) {
            Entry e = history.get(i);
            long life = life(i, nowNanos);
            if (life >= stableAfterNanos + skewNanos) {
                refs.add(e.members());
                return refs;
            }
            if (life >= stableAfterNanos - skewNanos) {
                refs.add(e.members()); // stable for some members, perhaps not for others
            }
            // a view shorter than that was stable for no member: it is no reference
        }
        // no view stable beyond doubt yet (the node just started): every view it saw is one
        List<List<Member>> all = new ArrayList<>();
        for (int i = history.size() - 1; i >= 0; i--) {
            all.add(history.get(i).members());
        }
        return all;
    }

    /**
     * Whether the current view is stable beyond doubt: it is the only reference of a decision now.
     *
     * @param nowNanos the time
     * @return true once it lasted stable-after plus the skew
     */
    boolean stable(long nowNanos) {
        return endedNanos < 0
                && !history.isEmpty()
                && life(history.size() - 1, nowNanos) >= stableAfterNanos + skewNanos;
    }

    private long life(int i, long nowNanos) {
        long end = i == history.size() - 1
                ? (endedNanos >= 0 ? endedNanos : nowNanos)
                : history.get(i + 1).installedNanos();
        return end - history.get(i).installedNanos();
    }

    /** Forgets views older than the newest stable one beyond doubt: they are never a reference again. */
    private void trim(long nowNanos) {
        for (int i = history.size() - 1; i > 0; i--) {
            if (life(i, nowNanos) >= stableAfterNanos + skewNanos) {
                history.subList(0, i).clear();
                return;
            }
        }
    }

    /**
     * Whether a side wins against every reference.
     *
     * @param side the members of the side
     * @param references the reference views, each oldest first
     * @return whether it may run
     */
    boolean wins(Collection<Member> side, List<List<Member>> references) {
        switch (settings.strategy()) {
            case OFF, STORE_LEASE:
                return true;
            case STATIC_QUORUM:
                // a side that lost nobody is no split: a cluster may start, and grow, below the quorum
                if (containsAll(side, references)) {
                    return true;
                }
                // a split of more than 2q - 1 members may leave q on both sides: then no side runs
                for (List<Member> reference : references) {
                    if (reference.size() > maxStaticQuorumMembers()
                            || present(side, reference) < settings.quorumSize()) {
                        return false;
                    }
                }
                return !references.isEmpty();
            default:
                break;
        }
        Set<Member> members = side instanceof Set<Member> s ? s : new HashSet<>(side);
        for (List<Member> reference : references) {
            if (!winsAgainst(members, reference)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The most members a cluster under {@code static-quorum} may have for its decisions to be safe: {@code 2q - 1}.
     * With more, two sides of a split may each hold {@code q}; a split of such a cluster stops every side.
     */
    int maxStaticQuorumMembers() {
        return 2 * settings.quorumSize() - 1;
    }

    /**
     * Whether a cluster of this many members is too large for static-quorum's decisions to be safe (see
     * {@link #maxStaticQuorumMembers}); never under the other strategies.
     */
    boolean tooManyForTheQuorum(int members) {
        return settings.strategy() == SplitBrainSettings.Strategy.STATIC_QUORUM && members > maxStaticQuorumMembers();
    }

    /** How many of a reference's members are on the side: members that joined since do not count. */
    private static int present(Collection<Member> side, List<Member> reference) {
        int n = 0;
        for (Member m : reference) {
            if (side.contains(m)) {
                n++;
            }
        }
        return n;
    }

    private static boolean containsAll(Collection<Member> side, List<List<Member>> references) {
        for (List<Member> reference : references) {
            if (!side.containsAll(reference)) {
                return false;
            }
        }
        return true;
    }

    private boolean winsAgainst(Set<Member> side, List<Member> reference) {
        if (reference.isEmpty()) {
            return true;
        }
        int present = 0;
        for (Member m : reference) {
            if (side.contains(m)) {
                present++;
            }
        }
        int size = reference.size();
        boolean hasOldest = side.contains(reference.get(0));
        if (settings.strategy() == SplitBrainSettings.Strategy.KEEP_OLDEST) {
            boolean aloneApart = settings.downIfAlone() && size > 2;
            if (hasOldest) {
                return !(aloneApart && present == 1);
            }
            return aloneApart && present == size - 1;
        }
        return 2 * present > size || (2 * present == size && hasOldest);
    }

    /**
     * Until when a coordinator may run, given when the members last confirmed they follow it: the latest time
     * {@code t} such that the members that confirmed at or after {@code t} win, plus the lease duration.
     *
     * @param confirmed for each member of the view, when it last confirmed (the sending time of the ping it
     *     answered); the coordinator itself counts as confirming now
     * @param nowNanos the time
     * @param leaseNanos the lease duration
     * @return the time until which the coordinator may run, or {@code Long.MIN_VALUE} if no set of them wins
     */
    long runUntil(Map<Member, Long> confirmed, long nowNanos, long leaseNanos) {
        List<Map.Entry<Member, Long>> byTime = new ArrayList<>(confirmed.entrySet());
        byTime.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        List<List<Member>> refs = references(nowNanos);
        Set<Member> side = new HashSet<>();
        for (Map.Entry<Member, Long> e : byTime) {
            side.add(e.getKey());
            if (wins(side, refs)) {
                return e.getValue() + leaseNanos;
            }
        }
        return Long.MIN_VALUE;
    }
}
