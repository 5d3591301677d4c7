package dev.sharding.test;

import dev.sharding.AdminResult;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/** Operator hand-offs in tests. */
public final class HandOffs {

    private HandOffs() {}

    /**
     * Asks for a shard's hand-off, again while the coordinator answers that the shard is still being allocated (the
     * reply to the ask that allocated it can come before its region confirmed it to the coordinator): the operator's
     * "try again in a moment".
     *
     * @param via the node asked
     * @param type the entity type
     * @param shard the shard
     * @param target the node to move it to
     * @return the last answer: accepted, or refused for another reason
     */
    public static AdminResult handOff(ShardingNode via, String type, int shard, String target) {
        AtomicReference<AdminResult> last = new AtomicReference<>();
        Awaitility.await("hand-off of " + type + " shard " + shard + " to " + target + " answered")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    AdminResult r = via.admin().handOff(type, shard, target).get(10, TimeUnit.SECONDS);
                    last.set(r);
                    return r.accepted() || !r.message().contains("is being allocated");
                });
        return last.get();
    }
}
