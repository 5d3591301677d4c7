package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityUnreachableException;
import dev.sharding.internal.region.Region;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A step of applying a view that throws does not skip the steps after it. */
class ViewChangeStepsTest {

    private final List<NodeRuntime> nodes = new ArrayList<>();

    private final ControllableStore store = new ControllableStore();

    @AfterEach
    void stop() {
        store.release();
        nodes.forEach(n -> n.stop(Duration.ofSeconds(5)));
    }

    @Test
    void whenAnEarlyStepThrowsAsksToTheMemberGoneStillFailAndTheCoordinatorStillRemovesIt() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        NodeRuntime a = start(network, "a");
        NodeRuntime b = start(network, "b");
        awaitServing(a, b);
        assertThat(a.isCoordinator()).isTrue();
        Region<Wallet> region = region(a);

        // an entity that lives on b, whose next deposit waits there for its write
        String onB = null;
        for (int i = 0; onB == null; i++) {
            Wallet.Reply reply = region.ask("w" + i, new Wallet.Deposit(1), Wallet.Reply.class)
                    .get(10, TimeUnit.SECONDS);
            if (reply.node().equals("b")) {
                onB = reply.id();
            }
        }
        String waiting = onB;
        store.holdWrites((id, epoch) -> id.equals(waiting));
        CompletableFuture<Wallet.Reply> ask =
                region.ask(waiting, new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofSeconds(60));
        Awaitility.await("the write held on b").atMost(Duration.ofSeconds(10)).until(() -> store.held() >= 1);

        a.views().beforeStep = step -> {
            if (step.equals("leases")) {
                throw new IllegalStateException("a step that fails");
            }
        };
        b.crash();

        Awaitility.await("the ask to b failed").atMost(Duration.ofSeconds(10)).until(ask::isDone);
        assertThat(ask)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(EntityUnreachableException.class);
        store.release();
        // the coordinator removed b: b's shards come back to a, and b's entity answers from a
        Wallet.Reply after = region.ask(waiting, new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofSeconds(30))
                .get(40, TimeUnit.SECONDS);
        assertThat(after.node()).isEqualTo("a");
    }

    private NodeRuntime start(InMemoryNetwork network, String name) throws Exception {
        return WalletNodes.start(network, name, store, s -> s, nodes);
    }

    private static Region<Wallet> region(NodeRuntime node) {
        return WalletNodes.region(node);
    }

    private static void awaitServing(NodeRuntime... all) {
        WalletNodes.awaitServing(all);
    }
}
