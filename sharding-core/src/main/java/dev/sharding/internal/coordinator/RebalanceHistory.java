package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.RebalanceReport;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The coordinator's recent rebalances, for operators: when each started, in how many rounds, how many shards it moved,
 * from which members and to which. A round is one decision of the allocation strategy and the moves it starts; a
 * rebalance is a round that moved something and the rounds that followed it at once, each as soon as the previous
 * one's moves were done (the steps a limit on the moves of one round cuts it into), as the log numbers them. Only
 * rebalances that moved something are kept, the newest {@link #CAPACITY} of them, so that the quiet periodic rounds do
 * not push out the ones worth seeing.
 *
 * <p>A round's destinations fill in as its shards are placed again after their handoff. Pure: times are given. Control
 * thread only.
 */
final class RebalanceHistory {

    /** How many rebalances are kept. */
    static final int CAPACITY = 10;

    private final Deque<Round> rounds = new ArrayDeque<>();

    /** Told of every rebalance started, for the node's metrics. */
    private Runnable started = () -> {};

    /** @param listener told of every rebalance that starts moving shards */
    void onStart(Runnable listener) {
        this.started = listener;
    }

    /**
     * Starts recording a rebalance whose first round moves shards; the oldest is dropped when {@link #CAPACITY} are
     * kept.
     *
     * @param now when the round started
     * @return the rebalance, to note each move in
     */
    Round start(long now) {
        Round round = new Round(now);
        round.rounds = 1;
        rounds.addFirst(round);
        while (rounds.size() > CAPACITY) {
            rounds.removeLast();
        }
        started.run();
        return round;
    }

    /**
     * The latest rebalance, one round longer, to note the moves of a round that continues it (the next step, started
     * as soon as the previous step's moves were done); a new one when none is kept.
     *
     * @param now when the round started, if it must be a new one
     * @return the latest rebalance
     */
    Round continueLatest(long now) {
        Round latest = rounds.peekFirst();
        if (latest == null) {
            return start(now);
        }
        latest.rounds++;
        return latest;
    }

    /**
     * The kept rebalances, newest first.
     *
     * @param now the time now, to give each one's age
     * @return the rebalances
     */
    List<RebalanceReport> report(long now) {
        List<RebalanceReport> list = new ArrayList<>(rounds.size());
        for (Round r : rounds) {
            list.add(new RebalanceReport(
                    Math.max(0, (now - r.startedNanos) / 1_000_000), r.rounds, r.moved, r.from, r.to));
        }
        return list;
    }

    /**
     * One rebalance, its rounds so far: its moves are noted as they start and as their shards find their new homes.
     */
    static final class Round {

        final long startedNanos;

        /** How many rounds it took so far: decisions of the allocation strategy that moved something. */
        int rounds;

        int moved;

        final Map<String, Integer> from = new TreeMap<>();

        final Map<String, Integer> to = new TreeMap<>();

        Round(long startedNanos) {
            this.startedNanos = startedNanos;
        }

        /** A shard of the round started moving off a member. */
        void left(Member owner) {
            moved++;
            from.merge(owner.name(), 1, Integer::sum);
        }

        /** A shard of the round was placed on a member. */
        void arrived(Member home) {
            to.merge(home.name(), 1, Integer::sum);
        }
    }
}
