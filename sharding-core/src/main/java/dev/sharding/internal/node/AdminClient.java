package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The operator's requests to the active coordinator (run a rebalance round now, hand off one shard), sent from any
 * node: each waits for the coordinator's {@code AdminReply}, or gives up with a refusal after its timeout.
 */
final class AdminClient {

    private final Membership membership;

    private final Outbound out;

    private final BooleanSupplier running;

    private final Map<Long, CompletableFuture<AdminReply>> pending = new ConcurrentHashMap<>();

    private final AtomicLong ids = new AtomicLong();

    AdminClient(Membership membership, Outbound out, BooleanSupplier running) {
        this.membership = membership;
        this.out = out;
        this.running = running;
    }

    /** Sends a request to the coordinator; any thread. */
    CompletableFuture<AdminReply> request(
            @Nullable String typeName, int shardId, @Nullable String targetNode, Duration timeout) {
        long id = ids.incrementAndGet();
        CompletableFuture<AdminReply> f = new CompletableFuture<>();
        Member coord = membership.coordinator();
        if (coord == null || !running.getAsBoolean()) {
            f.complete(new AdminReply(id, false, "No coordinator is known yet"));
            return f;
        }
        pending.put(id, f);
        out.send(coord, new AdminRequest(id, typeName, shardId, targetNode), false);
        return f.completeOnTimeout(
                        new AdminReply(id, false, "The coordinator " + coord + " did not answer within " + timeout),
                        timeout.toMillis(),
                        TimeUnit.MILLISECONDS)
                .whenComplete((r, t) -> pending.remove(id));
    }

    /** The coordinator answered. */
    void onAdminReply(Member from, AdminReply m) {
        CompletableFuture<AdminReply> f = pending.remove(m.requestId());
        if (f != null) {
            f.complete(m);
        }
    }
}
