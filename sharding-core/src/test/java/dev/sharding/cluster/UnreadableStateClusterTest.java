package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityException;
import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stored state the entity's state class cannot read (here one stored under a class since renamed) fails the
 * entity's messages with an error naming the entity, every time, and stays stored: it is never replaced by the
 * initial state, which the next write would have stored over it.
 */
class UnreadableStateClusterTest {

    /** The state class under its old name. */
    public record OldBalance(long amount, long deposits) {}

    private final InMemoryShardingStore store = new InMemoryShardingStore();

    private final TestCluster cluster = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Wallet.type()).store(store));

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void failsTheEntitysMessagesAndKeepsTheStoredState() throws Exception {
        byte[] old = new JacksonMessageCodec(List.of(OldBalance.class), 1 << 20).encode(new OldBalance(3, 3));
        store.write("wallet", "w-1", EntityType.shardOf("w-1", 100), 0, old).join();
        ShardingNode node = cluster.startNode();

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> node.region(Wallet.class)
                            .ask("w-1", new Wallet.Deposit(1), Wallet.Reply.class)
                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(EntityException.class)
                    .hasMessageContaining(
                            "The stored state of [wallet/w-1] cannot be read as " + Wallet.Balance.class.getName())
                    .hasMessageContaining(OldBalance.class.getName());
        }
        assertThat(store.read("wallet", "w-1").join())
                .hasValueSatisfying(s -> assertThat(s.state()).isEqualTo(old));
        assertThat(node.region(Wallet.class)
                        .ask("w-2", new Wallet.Deposit(4), Wallet.Reply.class)
                        .get(30, TimeUnit.SECONDS)
                        .amount())
                .as("other entities work")
                .isEqualTo(4);
    }
}
