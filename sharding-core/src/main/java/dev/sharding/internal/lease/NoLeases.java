package dev.sharding.internal.lease;

import dev.sharding.Member;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Split-brain strategy off: no decision and no leases. Every side wins, the node always serves (its lease is held
 * forever), the coordinator always runs (as far as the store's lease, which the keeper still holds against a second
 * cluster on the store, lets it) and fences nothing, and lease messages are ignored.
 *
 * <p>Control thread; {@link #serving()} and {@link #partitioned()} from any thread (constants).
 */
final class NoLeases implements Leases {

    private final LeaseHost node;

    /** The round of the last ping, see {@link #ping}. */
    private long round;

    NoLeases(LeaseHost node) {
        this.node = node;
    }

    @Override
    public boolean serving() {
        return true;
    }

    @Override
    public @Nullable String partitioned() {
        return null;
    }

    @Override
    public long servingUntil() {
        return Long.MAX_VALUE;
    }

    /** As good as granted at start. */
    @Override
    public boolean hadLease() {
        return true;
    }

    @Override
    public boolean viewWins() {
        return true;
    }

    @Override
    public boolean viewStable(long now) {
        return true;
    }

    @Override
    public void stableAfter(long nanos) {}

    @Override
    public void memberLeaving(Member member) {}

    @Override
    public void newView(
            List<Member> members,
            boolean coordinatorChanged,
            boolean becameCoordinator,
            boolean stoppedCoordinating,
            long now) {}

    @Override
    public void decide(List<Member> members, List<Member> deciding, boolean coordinating, long now) {}

    /**
     * One round of pings on each view, as under the other strategies, though no member answers them under this one:
     * kept as it was when the strategy was a flag. Nothing depends on it.
     */
    @Override
    public void ping(List<Member> view, long now) {
        long r = ++round;
        for (Member m : view) {
            if (!m.equals(node.self())) {
                node.send(m, new LeasePing(r), false);
            }
        }
    }

    @Override
    public void pingNow(Member member, List<Member> view) {}

    @Override
    public boolean coordinatorRuns(long now) {
        return true;
    }

    @Override
    public boolean mayHoldStoreLease(long now) {
        return true;
    }

    @Override
    public void storeLeaseRegained(long until, long now) {}

    @Override
    public long fenceFor(Member gone, long now) {
        return now;
    }

    @Override
    public boolean confirmedSince(long since, long now) {
        return true;
    }

    @Override
    public long activationFence(boolean everFollowed, long now) {
        return now;
    }

    @Override
    public long confirmedActivationFence(boolean everFollowed, long now) {
        return Long.MIN_VALUE;
    }

    @Override
    public long mergeFence(long now) {
        return now;
    }

    @Override
    public boolean leased(Member member, long now) {
        return true;
    }

    @Override
    public void tick(long now, List<Member> view, boolean coordinating, @Nullable Member coordinator) {}

    @Override
    public void clockJumped(boolean coordinating) {}

    @Override
    public void onPing(Member from, LeasePing ping) {}

    @Override
    public void onPong(Member from, LeasePong pong, List<Member> view) {}

    @Override
    public void onGrant(LeaseGrant grant) {}

    @Override
    public void onRefused(LeaseRefused refused, boolean coordinating) {}
}
