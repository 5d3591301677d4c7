package dev.sharding.store;

import dev.sharding.boot.test.store.ShardingStoreContract;
import dev.sharding.spi.ShardingStore;

/**
 * The reference store passes its own contract; its "two nodes" share the one store, as nodes of one JVM do.
 */
class InMemoryShardingStoreContractTest extends ShardingStoreContract {

    @Override
    protected ShardingStore createStore() {
        return new InMemoryShardingStore();
    }

    @Override
    protected ShardingStore createPeer(ShardingStore first) {
        return first;
    }
}
