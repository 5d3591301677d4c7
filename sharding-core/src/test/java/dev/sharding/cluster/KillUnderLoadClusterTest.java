package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sharding.ShardingNode;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.DepositLoad;
import dev.sharding.test.Ledger;
import dev.sharding.test.OwnerLog;
import dev.sharding.test.TestCluster;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Nodes crashed on purpose while deposits flow through every node, the coordinator's among them: a crash is what a
 * test of failure handling does on purpose, so neither the crashed node (whose threads stop under work still arriving:
 * its own last view, store completions, callers' requests) nor the survivors log an ERROR for it; the survivors serve
 * every account again.
 */
class KillUnderLoadClusterTest {

    private final InMemoryShardingStore store = new InMemoryShardingStore();

    private final TestCluster cluster = new TestCluster(
            settings -> ShardingNode.builder(settings).store(store).entityType(Ledger.type(new OwnerLog())));

    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private final ListAppender<ILoggingEvent> errors = new ListAppender<>() {
        @Override
        protected void append(ILoggingEvent event) {
            if (event.getLevel().isGreaterOrEqual(Level.ERROR)) {
                super.append(event);
            }
        }
    };

    @BeforeEach
    void capture() {
        errors.start();
        root.addAppender(errors);
    }

    @AfterEach
    void stop() {
        try {
            cluster.close();
        } finally {
            root.detachAppender(errors);
        }
    }

    @Test
    void crashesUnderLoadLogNoError() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(5);
        cluster.awaitStable();
        // through every node, crashed ones included: a caller may still hold a node that has just crashed
        try (DepositLoad load = new DepositLoad(() -> nodes, 40, 4)) {
            load.awaitAcknowledged(200);
            // the coordinator's node first, then two members, each once the survivors' view is stable
            for (ShardingNode victim : List.of(nodes.get(0), nodes.get(4), nodes.get(2))) {
                long before = load.acknowledged();
                victim.crash();
                cluster.awaitStable();
                load.awaitAcknowledged(before + 200);
            }
        }
        assertThat(cluster.running()).hasSize(2);
        assertThat(errors.list)
                .as("ERRORs logged while nodes were crashed on purpose")
                .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage()
                        + (e.getThrowableProxy() == null
                                ? ""
                                : " (" + e.getThrowableProxy().getClassName() + ": "
                                        + e.getThrowableProxy().getMessage() + ")"))
                .isEmpty();
    }
}
