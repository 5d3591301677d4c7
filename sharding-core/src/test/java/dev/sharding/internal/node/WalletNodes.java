package dev.sharding.internal.node;

import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.ShardingStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;

/** Nodes of the {@link Wallet} type on an {@link InMemoryNetwork}, for tests of the runtime's internals. */
public final class WalletNodes {

    private WalletNodes() {}

    /**
     * Starts a node with a 100 ms retry interval and the settings' change.
     *
     * @param network the network
     * @param name the node name
     * @param store the shared store
     * @param change changes to the settings
     * @param started where the node is added, for the test to stop
     * @return the node
     * @throws Exception when it cannot start
     */
    public static NodeRuntime start(
            InMemoryNetwork network,
            String name,
            ShardingStore store,
            UnaryOperator<ShardingSettings> change,
            List<NodeRuntime> started)
            throws Exception {
        NodeRuntime node = new NodeRuntime(
                change.apply(ShardingSettings.defaults().withNodeName(name).withRetryInterval(Duration.ofMillis(100))),
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                codec(),
                network.transport(name),
                store,
                null);
        node.start();
        started.add(node);
        return node;
    }

    public static JacksonMessageCodec codec() {
        Set<Class<?>> types = new HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        return new JacksonMessageCodec(types, 1 << 20);
    }

    @SuppressWarnings("unchecked")
    public static Region<Wallet> region(NodeRuntime node) {
        return (Region<Wallet>) node.regions().get("wallet");
    }

    public static void awaitServing(NodeRuntime... all) {
        Awaitility.await("registered and leased").atMost(Duration.ofSeconds(20)).until(() -> {
            for (NodeRuntime n : all) {
                if (!n.isRegistered() || !n.serving()) {
                    return false;
                }
            }
            return true;
        });
    }
}
