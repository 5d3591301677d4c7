package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AskTimeoutException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member that is not the coordinator, once steady, runs its periodic work at the quiet period rather than every
 * tick; an ask or a view wakes it. The tests set the quiet period to an hour on the member, so that only a wake-up can
 * explain what follows: an ask that times out, a view change that ends the quiet.
 */
class QuietTickTest {

    private final ControllableStore store = new ControllableStore();

    private final InMemoryNetwork network = new InMemoryNetwork();

    private final List<NodeRuntime> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        store.release();
        for (NodeRuntime n : nodes) {
            n.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void aSteadyMemberGoesQuietWhileTheCoordinatorKeepsItsPeriod() throws Exception {
        NodeRuntime a = start("a");
        NodeRuntime b = start("b");
        awaitQuiet(b);

        assertThat(a.isCoordinator()).isTrue();
        assertThat(quiet(a)).isFalse();
    }

    @Test
    void anAskFromAQuietMemberWakesItsTickSoThatTheAskTimesOut() throws Exception {
        NodeRuntime b = quietMemberOfTwo();
        store.holdWrites((id, epoch) -> true); // a deposit is never stored, so never answered

        @SuppressWarnings("unchecked")
        Region<Wallet> region = (Region<Wallet>) b.regions().get("wallet");
        CompletableFuture<Wallet.Reply> ask =
                region.ask("w-1", new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofMillis(200));

        Awaitility.await("the ask timed out").atMost(Duration.ofSeconds(10)).until(ask::isDone);
        assertThat(ask)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(AskTimeoutException.class);
    }

    @Test
    void aViewChangeEndsTheQuiet() throws Exception {
        NodeRuntime b = quietMemberOfTwo();

        start("c");

        Awaitility.await("b's tick runs at its period again")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !quiet(b));
    }

    /** Starts a coordinator and a member, b, whose quiet period is an hour, and waits until b is quiet. */
    private NodeRuntime quietMemberOfTwo() throws Exception {
        start("a");
        NodeRuntime b = start("b");
        b.tick().quietPeriodForTests(TimeUnit.HOURS.toMillis(1));
        awaitQuiet(b);
        return b;
    }

    private NodeRuntime start(String name) {
        NodeRuntime node = new NodeRuntime(
                ShardingSettings.defaults().withNodeName(name),
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                codec(),
                network.transport(name),
                store,
                null,
                ForkJoinPool.commonPool(),
                false,
                ShardingMetrics.NONE,
                MessageTracing.NONE);
        nodes.add(node);
        node.start();
        Awaitility.await(name + " serving")
                .atMost(Duration.ofSeconds(20))
                .until(() -> node.isRegistered() && node.serving());
        return node;
    }

    private static void awaitQuiet(NodeRuntime node) {
        // steady for PeriodicTick.STIRRED_NANOS (5 s) after the last view change first
        Awaitility.await(node + " quiet")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> quiet(node));
    }

    private static boolean quiet(NodeRuntime node) throws Exception {
        return node.control().submit(() -> node.tick().quiet()).get();
    }

    private static JacksonMessageCodec codec() {
        Set<Class<?>> types = new HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        return new JacksonMessageCodec(types, 1 << 20);
    }
}
