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
 * The coordinator's recent rebalances, for operators: when each started, how many shards it moved, from which
 * members and to which. A rebalance is a round that moved something and the rounds that followed it at once, each as
 * soon as the previous one's moves were done (the steps a limit on simultaneous moves cuts it into). Only rebalances
 * that moved something are kept, the newest {@link #CAPACITY} of them, so that the quiet periodic rounds do not push
 * out the ones worth seeing.
 *
 * <p>A round's destinations fill in as its shards are placed again after their handoff. Pure: times are given. Control
 * thread only.
 */
final class RebalanceHistory {

    /** How many rounds are kept. */
    static final int CAPACITY = 10;

    private final Deque<Round> rounds = new ArrayDeque<>();

    /** Told of every round started, for the node's metrics. */
    private Runnable started = () -> {};

    /** @param listener told of every round that starts moving shards */
    void onStart(Runnable listener) {
        this.started = listener;
    }

    /**
     * Starts recording a round that moves shards; the oldest round is dropped when {@link #CAPACITY} are kept.
     *
     * @param now when the round started
     * @return the round, to note each move in
     */
    Round start(long now) {
        Round round = new Round(now);
        rounds.addFirst(round);
        while (rounds.size() > CAPACITY) {
            rounds.removeLast();
        }
        started.run();
        return round;
    }

    /**
     * The latest rebalance, to note the moves of a round that continues it (the next step, started as soon as the
     * previous step's moves were done); a new one when none is kept.
     *
     * @param now when the round started, if it must be a new one
     * @return the latest rebalance
     */
    Round continueLatest(long now) {
        Round latest = rounds.peekFirst();
        return latest != null ? latest : start(now);
    }

    /**
     * The kept rounds, newest first.
     *
     * @param now the time now, to give each round's age
     * @return the rounds
     */
    List<RebalanceReport> report(long now) {
        List<RebalanceReport> list = new ArrayList<>(rounds.size());
        for (Round r : rounds) {
            list.add(new RebalanceReport(Math.max(0, (now - r.startedNanos) / 1_000_000), r.moved, r.from, r.to));
        }
        return list;
    }

    /** One round: its moves are noted as they start and as their shards find their new homes. */
    static final class Round {

        final long startedNanos;

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
