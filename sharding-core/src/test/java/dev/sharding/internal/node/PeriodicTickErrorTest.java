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
import java.io.Serial;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An {@link Error} thrown in the control thread's periodic work does not stop the ticks after it. */
class PeriodicTickErrorTest {

    private final ControllableStore store = new ControllableStore();

    /** Throws an error on the first completion handed to it once armed: from the tick that times an ask out. */
    private final AtomicBoolean armed = new AtomicBoolean();

    private final Executor callbacks = command -> {
        if (armed.compareAndSet(true, false)) {
            throw new TickBreaker();
        }
        ForkJoinPool.commonPool().execute(command);
    };

    private NodeRuntime node;

    @AfterEach
    void stop() {
        store.release();
        if (node != null) {
            node.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    void anErrorInOneTickLeavesTheNextTicksRunning() throws Exception {
        node = new NodeRuntime(
                ShardingSettings.defaults().withNodeName("a"),
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                codec(),
                new InMemoryNetwork().transport("a"),
                store,
                null,
                callbacks,
                false,
                ShardingMetrics.NONE,
                MessageTracing.NONE);
        node.start();
        Awaitility.await("serving").atMost(Duration.ofSeconds(20)).until(() -> node.isRegistered() && node.serving());
        @SuppressWarnings("unchecked")
        Region<Wallet> region = (Region<Wallet>) node.regions().get("wallet");
        store.holdWrites((id, epoch) -> true);

        armed.set(true);
        region.ask("first", new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofMillis(100));
        Awaitility.await("the tick that timed the first ask out threw")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !armed.get());

        CompletableFuture<Wallet.Reply> second =
                region.ask("second", new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofMillis(100));
        Awaitility.await("the second ask timed out by a later tick")
                .atMost(Duration.ofSeconds(10))
                .until(second::isDone);
        assertThat(second)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(AskTimeoutException.class);
    }

    private static JacksonMessageCodec codec() {
        Set<Class<?>> types = new HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        return new JacksonMessageCodec(types, 1 << 20);
    }

    /** An error of the test's own. */
    private static final class TickBreaker extends Error {

        @Serial
        private static final long serialVersionUID = 1L;

        TickBreaker() {
            super("thrown on purpose in a tick");
        }
    }
}
