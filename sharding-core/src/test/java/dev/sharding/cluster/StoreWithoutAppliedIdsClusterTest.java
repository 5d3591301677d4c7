package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityException;
import dev.sharding.ShardingNode;
import dev.sharding.spi.ShardingStore.Capability;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A store that does not declare {@link Capability#APPLIED_MESSAGES} is never asked to keep the ids of applied
 * messages: an ask with a message id to an entity with durable state fails with no effect, as it did when the store
 * refused such a write, and asks without one go on as usual.
 */
class StoreWithoutAppliedIdsClusterTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** The entity ids of the writes that carried applied message ids. */
    private final List<String> writesWithIds = new CopyOnWriteArrayList<>();

    private final ControllableStore store = new ControllableStore() {

        @Override
        public Set<Capability> capabilities() {
            return Set.of(Capability.CURRENT_EPOCHS, Capability.COORDINATOR_LEASE);
        }

        @Override
        public CompletableFuture<StoredState> write(
                String typeName, String entityId, int shardId, long epoch, byte[] state, byte @Nullable [] applied) {
            if (applied != null) {
                writesWithIds.add(entityId);
            }
            return super.write(typeName, entityId, shardId, epoch, state, applied);
        }
    };

    private final TestCluster cluster = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Wallet.type()).store(store));

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void anAskWithAMessageIdFailsUnappliedAndTheStoreIsNeverAskedToKeepTheId() throws Exception {
        ShardingNode node = cluster.startNode();
        assertThatThrownBy(() -> node.region(Wallet.class)
                        .ask("a", new Wallet.Deposit(10), Wallet.Reply.class, TIMEOUT, "key-1")
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(EntityException.class)
                .hasMessageContaining("cannot store the ids of applied messages");
        Wallet.Reply read = node.region(Wallet.class)
                .ask("a", new Wallet.Read(), Wallet.Reply.class)
                .get(30, TimeUnit.SECONDS);
        assertThat(read.amount()).as("the deposit had no effect").isZero();
        Wallet.Reply deposited = node.region(Wallet.class)
                .ask("a", new Wallet.Deposit(5), Wallet.Reply.class)
                .get(30, TimeUnit.SECONDS);
        assertThat(deposited.amount())
                .as("an ask without an id is stored as usual")
                .isEqualTo(5);
        assertThat(writesWithIds).as("writes with applied ids").isEmpty();
    }
}
