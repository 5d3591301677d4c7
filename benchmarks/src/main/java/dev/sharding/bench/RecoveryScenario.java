package dev.sharding.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.EntityTypeSettings;
import dev.sharding.JgroupsSettings;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.store.JdbcStoreSettings;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.node.ObjectNode;

/**
 * E1, the recovery of an event-sourced entity, in this JVM: {@value #LEDGERS} {@link Ledger}s of {@value #EVENTS}
 * events each are written, then each is passivated and read again {@value #ROUNDS} times, and the read's round trip
 * timed: the activation reads the latest snapshot and the events after it (at most {@code snapshot-every} of them),
 * or, with snapshots off, every event, and folds them. Once with {@code snapshot-every=0} (none), once at the default
 * ({@value EntityTypeSettings#DEFAULT_SNAPSHOT_EVERY}), each on a node of its own over the same database.
 */
final class RecoveryScenario {

    static final int EVENTS = 10_000;

    static final int LEDGERS = 5;

    static final int ROUNDS = 3;

    /** Events per ask while the ledgers are filled. */
    private static final int PER_ASK = 100;

    private static final Duration ASK = Duration.ofSeconds(60);

    static final String NOTES = "one JVM (the launcher's), a single-node cluster on the default TCP stack; entity ="
            + " Ledger, state Sums(total, count) = fold of its Entered(amount) events (EventSourcedState, persisted"
            + " before the reply); fill = " + LEDGERS + " ledgers x " + EVENTS + " events, " + PER_ASK
            + " persisted per ask; warm-up = every ledger passivated and read twice; measured = every ledger passivated"
            + " (the ask Rest, then waited for until no ledger is live) and read by a Read ask, " + ROUNDS
            + " rounds; recovery_ms = that ask's round trip (the store's read of snapshot and events, their decoding"
            + " and fold, the reply); with snapshot-every=0 (no snapshot: every event read) and at the default 100";

    private RecoveryScenario() {}

    static ObjectNode run(Launcher launcher, String tag, String store) throws Exception {
        ObjectNode r = Workloads.JSON.createObjectNode();
        HikariConfig config = new HikariConfig();
        if (store.equals("postgresql")) {
            EmbeddedPostgres pg = launcher.startPostgres(tag, Map.of());
            config.setJdbcUrl("jdbc:postgresql://localhost:" + pg.getPort() + "/postgres");
            config.setUsername("postgres");
            config.setPassword("");
        } else {
            config.setJdbcUrl("jdbc:h2:file:" + launcher.embeddedStorePath(tag) + ";WRITE_DELAY=0");
            config.setUsername("sa");
            config.setPassword("");
        }
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcShardingStore jdbc = new JdbcShardingStore(pool, JdbcStoreSettings.defaults());
            jdbc.createSchema();
            for (int every : new int[] {0, EntityTypeSettings.DEFAULT_SNAPSHOT_EVERY}) {
                ObjectNode one = measure(jdbc, every);
                String key = every == 0 ? "no_snapshots" : "snapshot_every_" + every;
                r.set(key, one);
                r.put("recovery_ms_" + key, one.get("recovery_ms_median").asDouble());
            }
        }
        r.put("events_per_entity", EVENTS);
        r.put("store", store);
        return r;
    }

    private static ObjectNode measure(JdbcShardingStore store, int snapshotEvery) throws Exception {
        int port = Ports.pick(1).get(0);
        ShardingSettings settings = ShardingSettings.defaults()
                .withClusterName(Launcher.newClusterName())
                .withNodeName("e1")
                .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", port, 0, "127.0.0.1[" + port + "]"))
                .withEntity(
                        "ledger",
                        EntityTypeSettings.builder()
                                .snapshotEvery(snapshotEvery)
                                .build());
        ShardingNode node = ShardingNode.builder(settings)
                .entityType(Ledger.type())
                .store(store)
                .build();
        node.start();
        try {
            ShardRegion<Ledger> ledgers = node.region(Ledger.class);
            String prefix = "s" + snapshotEvery + "-";
            long t0 = System.nanoTime();
            for (int l = 0; l < LEDGERS; l++) {
                for (int i = 0; i < EVENTS / PER_ASK; i++) {
                    ledgers.ask(prefix + l, new Ledger.Enter(PER_ASK, 1), Ledger.Sums.class, ASK)
                            .get(ASK.toSeconds(), TimeUnit.SECONDS);
                }
            }
            double fillSeconds = Workloads.seconds(System.nanoTime() - t0);
            for (int l = 0; l < LEDGERS; l++) {
                ledgers.ask(prefix + l, new Ledger.Rest(), Ledger.Sums.class, ASK)
                        .get(ASK.toSeconds(), TimeUnit.SECONDS);
            }
            for (int round = 0; round < 2; round++) {
                for (int l = 0; l < LEDGERS; l++) {
                    recover(node, ledgers, prefix + l);
                }
            }
            List<Double> millis = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                for (int l = 0; l < LEDGERS; l++) {
                    millis.add(recover(node, ledgers, prefix + l));
                }
            }
            double[] sorted =
                    millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            ObjectNode o = Workloads.JSON.createObjectNode();
            o.put("recovery_ms_median", round2(sorted[sorted.length / 2]));
            o.put("recovery_ms_min", round2(sorted[0]));
            o.put("recovery_ms_max", round2(sorted[sorted.length - 1]));
            o.put("recoveries", sorted.length);
            o.put("append_events_per_s", Math.round(LEDGERS * (double) EVENTS / fillSeconds));
            o.put("snapshot_every", snapshotEvery);
            tools.jackson.databind.node.ArrayNode all = o.putArray("recovery_ms_all");
            Arrays.stream(sorted).forEach(v -> all.add(round2(v)));
            return o;
        } finally {
            node.close();
        }
    }

    /**
     * Waits until no ledger is live, times the read that recovers one, checks its sums and passivates it again.
     */
    private static double recover(ShardingNode node, ShardRegion<Ledger> ledgers, String id) throws Exception {
        long deadline = System.nanoTime() + ASK.toNanos();
        while (node.localRegion("ledger").activeEntities() > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the ledgers were not passivated within " + ASK);
            }
            Thread.sleep(1);
        }
        long t0 = System.nanoTime();
        Ledger.Sums sums =
                ledgers.ask(id, new Ledger.Read(), Ledger.Sums.class, ASK).get(ASK.toSeconds(), TimeUnit.SECONDS);
        long t1 = System.nanoTime();
        if (sums.count() != EVENTS || sums.total() != EVENTS) {
            throw new IllegalStateException("ledger " + id + " recovered as " + sums + ", not " + EVENTS + " entries");
        }
        ledgers.ask(id, new Ledger.Rest(), Ledger.Sums.class, ASK).get(ASK.toSeconds(), TimeUnit.SECONDS);
        return (t1 - t0) / 1e6;
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
