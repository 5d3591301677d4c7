package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sharding.sample.SampleCluster.Node;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shards move between processes: two sample-app JVMs host every account, a third joins and receives its fair share
 * at the default rebalance settings; then a rolling restart under load, as a deploy does it, on the embedded H2 file:
 * each node in turn out of the clients' rotation, SIGTERM, started again, UP, back in rotation. Not one request
 * fails, and every account's balance is what was acknowledged. About 100 s: three JVM starts and three leaves.
 */
class RebalanceProcessIT {

    private static final int ACCOUNTS = 100;

    /** Six clients, each pausing 5 ms between requests: a steady load that leaves the JVMs that start some CPU. */
    private static final int LOAD_THREADS = 6;

    private static final Duration LOAD_PAUSE = Duration.ofMillis(5);

    private static final String REPORT = "rolling-restart.txt";

    private SampleCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aJoiningNodeGetsItsShareAndAGracefulStopUnderLoadFailsNoRequest() throws Exception {
        cluster = new SampleCluster("rebalance-it", 3);
        try {
            run();
        } catch (Throwable t) {
            cluster.printLogTails();
            throw t;
        }
    }

    private void run() throws Exception {
        Node n1 = cluster.node(0);
        Node n2 = cluster.node(1);
        Node n3 = cluster.node(2);
        cluster.start(n1);
        cluster.awaitCluster(List.of(n1));
        cluster.start(n2);
        cluster.awaitCluster(List.of(n1, n2));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            ids.add(String.format("rb-acct-%03d", i));
            deposit(i % 2 == 0 ? n1 : n2, ids.get(i));
        }
        int shards = SampleCluster.shardsHostedBy(n1) + SampleCluster.shardsHostedBy(n2);
        int fair = shards / 3;

        // A third node joins: it gets its share at the default rebalance settings.
        long joined = System.nanoTime();
        cluster.start(n3);
        cluster.awaitCluster(List.of(n1, n2, n3));
        long deadline = joined + Duration.ofSeconds(120).toNanos();
        while (SampleCluster.shardsHostedBy(n3) < fair) {
            if (System.nanoTime() > deadline) {
                fail(
                        "%s hosts %d shards 120 s after joining; its fair share of %d is %d",
                        n3, SampleCluster.shardsHostedBy(n3), shards, fair);
            }
            SampleCluster.pause(Duration.ofMillis(100));
        }
        cluster.report(
                "rebalance-times.txt",
                String.format(
                        "Joining node %s hosted %d of %d shards %.1f s after" + " it was started",
                        n3.name, SampleCluster.shardsHostedBy(n3), shards, (System.nanoTime() - joined) / 1e9));
        for (String id : ids) {
            deposit(n3, id);
        }

        // A rolling restart under load, as a deploy does it. The first node restarted is the coordinator, which also
        // serves the embedded database file to the others: the file's server moves under the writes.
        assertThat(SampleCluster.coordinatorSeenBy(n3)).isEqualTo(n1.name);
        // each account holds 2: a deposit of 1 through n1 or n2, then one through n3
        rollingRestart(List.of(n1, n2, n3), List.of(n1, n2, n3), ids, 2);
    }

    /**
     * Three nodes on PostgreSQL, the database production runs, restarted in turn under load: not one request fails,
     * and then every account's history sums to its balance. The first two are restarted, each the coordinator when it
     * leaves (the second is the oldest member once the first has left); a member that does not coordinate is
     * restarted in the test before. About 60 s: the server's start, three JVM starts, then the restarts.
     */
    @Test
    void aRollingRestartOnPostgreSqlUnderLoadFailsNoRequest() throws Exception {
        try (EmbeddedPostgres postgres =
                EmbeddedPostgres.builder().setServerConfig("fsync", "on").start()) {
            cluster = new SampleCluster("rolling-postgresql-it", 3);
            String[] database = {
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres",
                "--spring.datasource.username=postgres"
            };
            try {
                List<Node> all = cluster.nodes();
                cluster.start(all.get(0), database);
                cluster.awaitCluster(List.of(all.get(0)));
                cluster.start(all.get(1), database);
                cluster.start(all.get(2), database);
                cluster.awaitCluster(all);
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < ACCOUNTS; i++) {
                    ids.add(String.format("pg-acct-%03d", i));
                    deposit(all.get(i % 3), ids.get(i));
                }
                rollingRestart(all, all.subList(0, 2), ids, 1, database);
                // the account history on PostgreSQL: its table, and the projection's writes in the offset's transaction
                HistoryCheck.awaitHistoriesSumToBalances(ids, all.get(0).url(""), Duration.ofSeconds(30));
            } catch (Throwable t) {
                cluster.printLogTails();
                throw t;
            } finally {
                cluster.close(); // before the database goes
                cluster = null;
            }
        }
    }

    /**
     * Restarts nodes in turn under load, as a deploy does it: out of the clients' rotation, SIGTERM (a graceful
     * leave: it hands its shards off), started again with the same arguments, back in rotation once UP in the
     * cluster. Every account's balance through every node must be what it held before plus what was acknowledged
     * (and at most the failed deposits more), and not one request may fail.
     */
    private void rollingRestart(List<Node> all, List<Node> restarted, List<String> ids, long before, String... args)
            throws Exception {
        RotationLoad load = new RotationLoad(all, ids, LOAD_THREADS, LOAD_PAUSE);
        load.start();
        try {
            load.awaitSucceeded(200);
            for (Node n : restarted) {
                if (n == restarted.get(0)) {
                    assertThat(SampleCluster.coordinatorSeenBy(n))
                            .as("the first node restarted coordinates")
                            .isEqualTo(n.name);
                }
                int hosted = SampleCluster.shardsHostedBy(n);
                long stopAt = System.nanoTime();
                load.takeOut(n);
                cluster.stop(n);
                double left = (System.nanoTime() - stopAt) / 1e9;
                String log = Files.readString(n.log);
                assertThat(log).as("log of %s, stopped gracefully", n.name).doesNotContain(" ERROR ");
                // what it logged from SIGTERM on: it closes the embedded database only once it has left
                assertThat(log.substring(Math.max(0, log.lastIndexOf("Commencing graceful shutdown"))))
                        .as("log of %s from SIGTERM on", n.name)
                        .doesNotContain("Database is already closed");
                long startAt = System.nanoTime();
                cluster.start(n, args);
                cluster.awaitCluster(all);
                double up = (System.nanoTime() - startAt) / 1e9;
                load.putBack(n);
                cluster.report(
                        REPORT,
                        String.format(
                                "Rolling restart: %s (hosting %d shards) exited %.1f s after SIGTERM, was UP in the"
                                        + " cluster %.1f s after its start; %d requests succeeded so far, %d failed",
                                n.name, hosted, left, up, load.ok(), load.failed()));
                load.awaitSucceeded(200);
            }
        } finally {
            load.stop();
            load.report().forEach(l -> cluster.report(REPORT, "Rolling restart: " + l));
        }
        assertThat(load.failed())
                .as("failed requests during the rolling restart: %s", load.report())
                .isZero();
        for (int a = 0; a < ids.size(); a++) {
            for (Node n : all) {
                JsonHttp.Answer r = SampleCluster.HTTP.get(n.url("/accounts/" + ids.get(a)));
                assertThat(r.status())
                        .as("balance of %s through %s: %s", ids.get(a), n.name, r)
                        .isEqualTo(200);
                long balance = r.body().path("balance").asLong() - before;
                assertThat(balance)
                        .as(
                                "balance of %s through %s, less the %d it held before the restarts",
                                ids.get(a), n.name, before)
                        .isBetween(load.acknowledged(a), load.acknowledged(a) + load.unknown(a));
            }
        }
    }

    private static void deposit(Node via, String id) {
        JsonHttp.Answer a = SampleCluster.HTTP.postJson(via.url("/accounts/" + id + "/deposit"), "{\"amount\": 1}");
        assertThat(a.status())
                .as("deposit into %s through %s: %s", id, via.name, a)
                .isEqualTo(200);
    }
}
