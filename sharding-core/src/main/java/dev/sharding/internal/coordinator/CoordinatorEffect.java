package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ProtocolMessage;

/**
 * What the coordinator's decision core asks the node to do after an event: send a message, take an epoch from the
 * store, read remembered shards, wake it later, ping a member's lease. The core never does any of it itself, so that
 * its decisions can be checked without a network, a store or a clock; {@code CoordinatorDriver} carries them out and
 * feeds the answers back as events.
 */
public sealed interface CoordinatorEffect {

    /** Carries out each kind of effect. */
    interface Handler {

        void send(Member to, ProtocolMessage message);

        void takeEpoch(ShardKey shard, long allocation);

        void readRemembered(String typeName);

        void retryAt(long atNanos);

        void pingLease(Member member);
    }

    /** Hands this effect to the handler's method for its kind. */
    void applyTo(Handler handler);

    /** Send a message to a member. */
    record Send(Member to, ProtocolMessage message) implements CoordinatorEffect {
        @Override
        public void applyTo(Handler handler) {
            handler.send(to, message);
        }
    }

    /**
     * Take a new epoch for a shard from the store; the answer is {@link Coordinator#onEpochTaken} or
     * {@link Coordinator#onEpochFailed} with the same allocation number.
     */
    record TakeEpoch(ShardKey shard, long allocation) implements CoordinatorEffect {
        @Override
        public void applyTo(Handler handler) {
            handler.takeEpoch(shard, allocation);
        }
    }

    /** Read which shards of a type have remembered entities; the answer is {@link Coordinator#onRememberedShards}. */
    record ReadRemembered(String typeName) implements CoordinatorEffect {
        @Override
        public void applyTo(Handler handler) {
            handler.readRemembered(typeName);
        }
    }

    /** Call {@link Coordinator#onRetryDue} with this time once it has passed (a fence ends then). */
    record RetryAt(long atNanos) implements CoordinatorEffect {
        @Override
        public void applyTo(Handler handler) {
            handler.retryAt(atNanos);
        }
    }

    /** Ping a member's lease now instead of at the next tick (it just registered). */
    record PingLease(Member member) implements CoordinatorEffect {
        @Override
        public void applyTo(Handler handler) {
            handler.pingLease(member);
        }
    }
}
