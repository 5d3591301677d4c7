package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import dev.sharding.sample.SampleCluster.Node;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.JdbcShardingStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;

/**
 * Removing the stored sharding data as an operator does it: the shipped jar run once more, with its own
 * configuration and {@code --sharding.store.remove-sharding-data=true}, in the folder holding the cluster's embedded
 * database. While a member of the cluster runs (a node in this test's JVM, over TCP) it exits non-zero and names
 * the member; once the member has stopped, it removes the remembered accounts, keeps their state, exits 0 and never
 * serves HTTP.
 */
class RemoveShardingDataProcessIT {

    private static final Duration ONE_SHOT = Duration.ofSeconds(120);

    private static final String REMOVE = "--sharding.store.remove-sharding-data=true";

    /** The embedded database the jar opens in its working directory, opened as the jar opens it. */
    private static final class EmbeddedStore implements AutoCloseable {

        final JdbcConnectionPool pool;

        final JdbcShardingStore store;

        EmbeddedStore(Path folder) {
            pool = JdbcConnectionPool.create(
                    "jdbc:h2:file:" + folder.resolve("data").resolve("sharding").toAbsolutePath()
                            + ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;WRITE_DELAY=0",
                    "sa",
                    "");
            store = new JdbcShardingStore(pool);
            store.createSchema();
        }

        @Override
        public void close() {
            store.close();
            pool.dispose();
        }
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> future) throws Exception {
        return future.get(30, TimeUnit.SECONDS);
    }

    @Test
    void isRefusedWhileAMemberRunsAndRemovesTheRememberedAccountsOnceItStopped() throws Exception {
        try (SampleCluster cluster = new SampleCluster("remove-sharding-data-it", 2)) {
            Node member = cluster.node(0);
            Node removal = cluster.node(1);
            long epoch;
            try (EmbeddedStore db = new EmbeddedStore(cluster.logDir())) {
                ShardingStore store = db.store;
                epoch = await(store.nextEpoch("account", 7));
                await(store.write("account", "rm-1", 7, epoch, new byte[] {1, 2, 3}));
                await(store.updateRemembered("account", 7, List.of("rm-1", "rm-2", "rm-3"), List.of()));
            }
            try {
                try (ShardingNode live =
                        ShardingNode.builder(cluster.settings(member)).build()) {
                    live.start();
                    int refused = cluster.runToExit(removal, ONE_SHOT, REMOVE);
                    String refusal = Files.readString(removal.log, StandardCharsets.UTF_8);
                    assertThat(refused)
                            .as("exit status while %s runs; see %s", member, removal.log)
                            .isNotZero();
                    assertThat(refusal)
                            .contains("APPLICATION FAILED TO START", "member n1 is alive", "Nothing was changed");
                }

                int removed = cluster.runToExit(removal, ONE_SHOT, REMOVE);
                String report = Files.readString(removal.log, StandardCharsets.UTF_8);
                assertThat(removed)
                        .as("exit status once %s stopped; see %s", member, removal.log)
                        .isZero();
                assertThat(report)
                        .contains(": 3 remembered entity ids; entity state and shard epochs were kept")
                        .doesNotContain("Tomcat started");
            } catch (Throwable t) {
                cluster.printLogTails();
                throw t;
            }
            try (EmbeddedStore db = new EmbeddedStore(cluster.logDir())) {
                assertThat(await(db.store.remembered("account", 7))).isEmpty();
                assertThat(await(db.store.read("account", "rm-1")))
                        .hasValueSatisfying(state -> assertThat(state.state()).containsExactly(1, 2, 3));
                assertThat(await(db.store.nextEpoch("account", 7))).isGreaterThan(epoch);
            }
        }
    }
}
