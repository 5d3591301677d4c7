package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.ProjectedEvent;
import dev.sharding.Projection;
import dev.sharding.ShardingNode;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.store.JdbcStoreSettings;
import dev.sharding.test.Passbook;
import dev.sharding.test.TestCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Projections: every persisted event reaches the handler of its slice, in each entity's order, also after the node
 * running a slice crashes; an exactly-once projection on the JDBC store writes each event once.
 */
class ProjectionClusterTest {

    private static final int SLICES = 3;

    private final List<TestCluster> clusters = new ArrayList<>();

    @TempDir
    Path folder;

    @AfterEach
    void stop() {
        clusters.forEach(TestCluster::close);
    }

    private TestCluster cluster(java.util.function.Function<dev.sharding.ShardingSettings, ShardingNode.Builder> b) {
        TestCluster c = new TestCluster(b);
        clusters.add(c);
        return c;
    }

    private static void deposit(ShardingNode via, String id, long amount) throws Exception {
        via.region(Passbook.class)
                .ask(id, new Passbook.Deposit(amount), Passbook.Reply.class)
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void everyEventReachesItsSliceInEachEntitysOrderAlsoAfterTheSlicesNodeCrashes() throws Exception {
        Map<String, List<Long>> seen = new ConcurrentHashMap<>();
        List<String> outOfOrder = new CopyOnWriteArrayList<>();
        InMemoryShardingStore store = new InMemoryShardingStore();
        java.util.concurrent.atomic.AtomicLong counted = new java.util.concurrent.atomic.AtomicLong();
        ShardingMetrics metrics = new ShardingMetrics() {
            @Override
            public ProjectionMetrics projection(String projection, int slice) {
                assertThat(projection).isEqualTo("passbook-view");
                return new ProjectionMetrics() {
                    @Override
                    public void handled(int events, long lagMillis) {
                        assertThat(lagMillis).isNotNegative();
                        counted.addAndGet(events);
                    }
                };
            }
        };
        TestCluster cluster = cluster(s -> ShardingNode.builder(s)
                .metrics(metrics)
                .entityType(Passbook.type())
                .entityType(Projection.of("passbook-view", "passbook", SLICES, events -> {
                    for (ProjectedEvent e : events) {
                        List<Long> seqs = seen.computeIfAbsent(e.entityId(), k -> new CopyOnWriteArrayList<>());
                        // at least once: a page handed again starts at most where the last one did
                        if (!seqs.isEmpty() && e.sequenceNr() > seqs.get(seqs.size() - 1) + 1) {
                            outOfOrder.add(e.entityId() + "#" + e.sequenceNr() + " after " + seqs);
                        }
                        seqs.add(e.sequenceNr());
                        assertThat(e.event()).isInstanceOf(Passbook.Deposited.class);
                    }
                }))
                .store(store));
        List<ShardingNode> nodes =
                cluster.startNodes(3, s -> s.withMember(s.member().withMinNrOfMembers(3)));
        List<String> ids =
                java.util.stream.IntStream.range(0, 24).mapToObj(i -> "p-" + i).toList();
        for (String id : ids) {
            for (int i = 0; i < 3; i++) {
                deposit(nodes.get(0), id, 1);
            }
        }
        awaitSeen(seen, ids, 3);

        ShardingNode victim = nodes.stream()
                .filter(n -> n.localRegion("passbook-view").hostedShards() > 0 && n != nodes.get(0))
                .findFirst()
                .orElseThrow();
        cluster.awaitStable();
        victim.crash();
        cluster.awaitConverged();
        for (String id : ids) {
            deposit(nodes.get(0), id, 1);
        }
        awaitSeen(seen, ids, 4);
        assertThat(outOfOrder).isEmpty();
        assertThat(counted.get()).as("the handled events counted").isGreaterThanOrEqualTo(24 * 4);
    }

    @Test
    void theAdminDescribesWhereEachWorkerRunsAndHowFarEachSliceIsBehind() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        InMemoryShardingStore store = new InMemoryShardingStore();
        TestCluster cluster = cluster(s -> ShardingNode.builder(s)
                .entityType(Passbook.type())
                .entityType(dev.sharding.ShardedDaemonProcess.of("ticker", 2, ctx -> () -> {}))
                .entityType(Projection.of("passbook-view", "passbook", 2, events -> {
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                }))
                .store(store));
        List<ShardingNode> nodes =
                cluster.startNodes(2, s -> s.withMember(s.member().withMinNrOfMembers(2)));
        ShardingNode via = nodes.get(1);
        List<String> names = nodes.stream().map(ShardingNode::nodeName).toList();
        Awaitility.await("every worker of both processes runs somewhere")
                .atMost(Duration.ofSeconds(30))
                .until(() -> daemons(via).stream()
                        .allMatch(d ->
                                d.workers().size() == 2 && d.workers().stream().allMatch(w -> w.runningOn() != null)));
        List<dev.sharding.DaemonProcessState> running = daemons(via);
        assertThat(running)
                .extracting(dev.sharding.DaemonProcessState::name)
                .containsExactly("passbook-view", "ticker");
        assertThat(running.get(0).projectionOf()).isEqualTo("passbook");
        assertThat(running.get(1).projectionOf()).isNull();
        for (dev.sharding.DaemonProcessState d : running) {
            for (dev.sharding.DaemonProcessState.Worker w : d.workers()) {
                assertThat(java.util.Objects.requireNonNull(w.runningOn()).name())
                        .isIn(names);
                assertThat(w.slice() != null)
                        .as("%s/%d has a slice", d.name(), w.index())
                        .isEqualTo(d.projectionOf() != null);
            }
        }
        dev.sharding.DaemonProcessState.ProjectionSlice first =
                java.util.Objects.requireNonNull(running.get(0).workers().get(0).slice());
        dev.sharding.DaemonProcessState.ProjectionSlice second =
                java.util.Objects.requireNonNull(running.get(0).workers().get(1).slice());
        assertThat(first.firstShard()).isZero();
        assertThat(second.lastShard()).isEqualTo(Passbook.type().numberOfShards() - 1);
        assertThat(second.firstShard()).isEqualTo(first.lastShard() + 1);

        // the handler holds its first page: the slices with events are behind, the others caught up
        for (int i = 0; i < 10; i++) {
            deposit(via, "behind-" + i, 1);
        }
        Awaitility.await("a slice shows the oldest event it has not handled")
                .atMost(Duration.ofSeconds(30))
                .until(() -> daemons(via).get(0).workers().stream()
                        .anyMatch(w -> w.slice() != null && w.slice().oldestUnhandled() != null));
        release.countDown();
        Awaitility.await("every slice caught up")
                .atMost(Duration.ofSeconds(30))
                .until(() -> daemons(via).get(0).workers().stream()
                        .allMatch(w -> w.slice() != null
                                && w.slice().oldestUnhandled() == null
                                && w.slice().lagMillis() == 0
                                && w.slice().error() == null));
        assertThat(daemons(via).get(0).workers().stream()
                        .mapToLong(
                                w -> java.util.Objects.requireNonNull(w.slice()).offset())
                        .max()
                        .orElse(0))
                .as("the furthest slice's offset")
                .isPositive();
    }

    private static List<dev.sharding.DaemonProcessState> daemons(ShardingNode via) throws Exception {
        dev.sharding.ClusterState state =
                via.admin().clusterState(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        return via.admin().daemonProcesses(state).get(10, TimeUnit.SECONDS);
    }

    private static void awaitSeen(Map<String, List<Long>> seen, List<String> ids, long last) {
        Awaitility.await("every event up to " + last + " projected")
                .atMost(Duration.ofSeconds(30))
                .until(() -> ids.stream()
                        .allMatch(id -> seen.getOrDefault(id, List.of()).stream()
                                        .distinct()
                                        .count()
                                == last));
    }

    @Test
    void anExactlyOnceProjectionWritesEachEventOnceInTheOffsetsTransaction() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:file:" + folder.resolve("db"));
        config.setUsername("sa");
        config.setPassword("");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcShardingStore store = new JdbcShardingStore(pool, JdbcStoreSettings.defaults());
            store.createSchema();
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                // a second insert of one event would fail the transaction on this key
                s.execute("CREATE TABLE passbook_entry (id VARCHAR(64), seq BIGINT, amount BIGINT,"
                        + " PRIMARY KEY (id, seq))");
            }
            TestCluster cluster = cluster(s -> ShardingNode.builder(s)
                    .entityType(Passbook.type())
                    .entityType(Projection.ofJdbc("passbook-entries", "passbook", 2, (connection, events) -> {
                        try (PreparedStatement insert = connection.prepareStatement(
                                "INSERT INTO passbook_entry (id, seq, amount) VALUES (?, ?, ?)")) {
                            for (ProjectedEvent e : events) {
                                insert.setString(1, e.entityId());
                                insert.setLong(2, e.sequenceNr());
                                insert.setLong(3, ((Passbook.Deposited) e.event()).amount());
                                insert.addBatch();
                            }
                            insert.executeBatch();
                        }
                    }))
                    .store(store));
            List<ShardingNode> nodes = cluster.startNodes(2);
            for (int i = 0; i < 40; i++) {
                deposit(nodes.get(i % 2), "j-" + (i % 8), i);
            }
            Awaitility.await("every event in the table once")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> count(pool) == 40);
            assertThat(store.projectionOffset("passbook-entries", 0).get(10, TimeUnit.SECONDS)
                            + store.projectionOffset("passbook-entries", 1).get(10, TimeUnit.SECONDS))
                    .as("both slices have moved")
                    .isPositive();
            cluster.close();
            store.close();
        }
    }

    private static long count(HikariDataSource pool) throws Exception {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT COUNT(*), COUNT(DISTINCT id || '/' || seq) FROM passbook_entry")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(rs.getLong(2));
            return rs.getLong(1);
        }
    }

    @Test
    void aProjectionOfATypeTheNodeDoesNotRunIsRefusedAtBuild() {
        TestCluster cluster = cluster(s -> ShardingNode.builder(s).store(new InMemoryShardingStore()));
        assertThatThrownBy(() -> ShardingNode.builder(cluster.settings("x"))
                        .entityType(Passbook.type())
                        .entityType(Projection.of("view", "nosuch", 2, events -> {}))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no event-sourced entity type nosuch");
        assertThatThrownBy(() -> ShardingNode.builder(cluster.settings("y"))
                        .entityType(Passbook.type())
                        .entityType(Projection.of("view", "passbook", 13, events -> {}))
                        .build())
                .hasMessageContaining("13 slices, more than the 12 shards");
        assertThatThrownBy(() -> ShardingNode.builder(cluster.settings("z"))
                        .entityType(Passbook.type())
                        .entityType(Projection.ofJdbc("view", "passbook", 2, (c, events) -> {}))
                        .store(new InMemoryShardingStore())
                        .build())
                .hasMessageContaining("JDBC store")
                .hasMessageContaining("register it only on nodes whose store is the JDBC store");
    }
}
