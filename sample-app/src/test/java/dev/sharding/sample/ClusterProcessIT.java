package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sharding.sample.SampleCluster.Node;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The sample as users run it: three JVMs of the shipped jar on loopback, driven over HTTP. Every account has exactly
 * one home whichever node is asked; after a member is killed with SIGKILL, and then the coordinator (the first node
 * started, which serves the shared H2 database file), every account answers again from the survivors with every
 * acknowledged deposit in its balance: the balance is durable state, read back from the store. The nodes run the
 * split-brain strategy store-lease, the one that keeps the last node of two running when the other dies.
 *
 * <p>The account history too: both killed nodes run workers of the projection account-history, the coordinator while
 * a client deposits with idempotency keys; at the end every account's history holds each acknowledged deposit exactly
 * once, in order, and sums to its balance (a few seconds more than the kills alone).
 *
 * <p>Node logs are written to {@code target/cluster-it/}; their tails are printed when the test fails.
 */
class ClusterProcessIT {

    private static final int ACCOUNTS = 100;

    private static final String STORE_LEASE = "--sharding.split-brain.strategy=store-lease";

    private static final Pattern ACCOUNT_ID = Pattern.compile("it-acct-\\d{3}");

    private static final Duration RECOVERY = Duration.ofSeconds(60);

    private static final JsonHttp HTTP = SampleCluster.HTTP;

    private static SampleCluster cluster;

    private static List<Node> NODES;

    /** What an account answered: its balance and the node hosting it. */
    private record Seen(long balance, String node) {}

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new SampleCluster("cluster-it", 3);
        NODES = cluster.nodes();
        Files.deleteIfExists(cluster.logDir().resolve("recovery-times.txt"));
        try {
            // The first node alone, so that it is the oldest member and hosts the coordinator; then the other two,
            // one after the other: started together on 2 busy cores, the third once formed a cluster of its own
            // beside the joining second and became the merged cluster's coordinator (LoneStartMergeClusterTest is
            // the test of that case). Split-brain strategy store-lease: after the second kill one node of two is
            // left, which keep-majority would stop (it cannot tell the coordinator's death from a partition), while
            // with the store's lease it runs on once the dead coordinator's lease has expired.
            cluster.start(NODES.get(0), STORE_LEASE);
            cluster.awaitCluster(List.of(NODES.get(0)));
            cluster.start(NODES.get(1), STORE_LEASE);
            cluster.awaitCluster(NODES.subList(0, 2));
            cluster.start(NODES.get(2), STORE_LEASE);
            cluster.awaitCluster(NODES);
        } catch (Throwable t) {
            cluster.printLogTails();
            throw t;
        }
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void everyAccountHasOneHomeAndAnswersAgainAfterAMemberAndTheCoordinatorAreKilled() throws Exception {
        try {
            run();
        } catch (Throwable t) {
            cluster.printLogTails();
            throw t;
        }
    }

    private void run() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            ids.add(String.format("it-acct-%03d", i));
        }

        // Deposits through every node: the reply names the same home whichever node the request went through.
        Map<String, Long> expected = new LinkedHashMap<>();
        // each account's acknowledged deposits in the order they were made: what its history must hold at the end
        Map<String, List<Long>> deposits = new LinkedHashMap<>();
        Map<String, String> home = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            Seen first = deposit(NODES.get(i % 3), id, i + 1);
            assertThat(first.balance()).as("first deposit into %s", id).isEqualTo(i + 1);
            Seen second = deposit(NODES.get((i + 1) % 3), id, 1000);
            assertThat(second.balance()).as("second deposit into %s", id).isEqualTo(i + 1001);
            assertThat(second.node())
                    .as("home of %s seen through two nodes", id)
                    .isEqualTo(first.node());
            expected.put(id, (long) i + 1001);
            deposits.put(id, new ArrayList<>(List.of((long) i + 1, 1000L)));
            home.put(id, first.node());
        }
        assertOneHomeEach(NODES, ids, expected, home);
        assertMetersScraped(ids);
        Map<String, Long> perNode =
                home.values().stream().collect(Collectors.groupingBy(n -> n, TreeMap::new, Collectors.counting()));
        System.out.println("Accounts per node: " + perNode);
        assertThat(perNode.keySet())
                .as("every node hosts accounts")
                .containsExactlyInAnyOrderElementsOf(
                        NODES.stream().map(n -> n.name).toList());

        // Kill a member that is not the coordinator.
        String coordinator = SampleCluster.coordinatorSeenBy(NODES.get(0));
        assertThat(coordinator).as("the first node started is the oldest").isEqualTo(NODES.get(0).name);
        Node member = NODES.stream()
                .filter(n -> !n.name.equals(coordinator))
                .findFirst()
                .orElseThrow();
        List<Node> survivors = NODES.stream().filter(n -> n != member).toList();
        long lived = home.values().stream().filter(member.name::equals).count();
        int workers = SampleCluster.shardsHostedBy(member, AccountHistory.PROJECTION);
        long pass = passMillis(survivors, ids);
        long recovery = killAndAwaitAllAnswering(member, survivors, ids);
        report("Killed member " + member.name + " (" + lived + " accounts and " + workers
                + " workers of the history projection lived there): all " + ids.size()
                + " accounts answered again after " + recovery + " ms (one pass over them takes " + pass
                + " ms when nothing fails)");

        for (String id : ids) {
            if (home.get(id).equals(member.name)) {
                home.remove(id); // a new home, same balance
            }
        }
        assertOneHomeEach(survivors, ids, expected, home);

        // Deposit into every account again: every acknowledged deposit must survive the next kill too.
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            Seen s = deposit(survivors.get(i % 2), id, 7);
            expected.merge(id, 7L, Long::sum);
            deposits.get(id).add(7L);
            assertThat(s.balance())
                    .as("deposit into %s after the first kill", id)
                    .isEqualTo(expected.get(id));
            home.put(id, s.node());
        }
        assertOneHomeEach(survivors, ids, expected, home);

        // Kill the coordinator: the last node takes over the coordinator and every account.
        Node oldest = survivors.stream()
                .filter(n -> n.name.equals(coordinator))
                .findFirst()
                .orElseThrow();
        Node last = survivors.stream().filter(n -> n != oldest).findFirst().orElseThrow();
        assertThat(SampleCluster.coordinatorSeenBy(last)).isEqualTo(oldest.name);
        lived = home.values().stream().filter(oldest.name::equals).count();
        pass = passMillis(List.of(last), ids);

        // Deposits with an Idempotency-Key: some answered before the kill, and a client that keeps depositing into
        // the coordinator's accounts through the kill, retrying each deposit with its key until it is answered.
        // Each key must count once, although a deposit may have been stored just before its node died.
        Map<String, String> answeredBefore = new LinkedHashMap<>();
        for (int i = 1; i < ids.size(); i += 5) {
            String id = ids.get(i);
            JsonHttp.Answer a = keyedDeposit(last, id, 11, "before-" + id);
            assertThat(a.status()).as("keyed deposit into %s: %s", id, a).isEqualTo(200);
            answeredBefore.put(id, a.text());
            expected.merge(id, 11L, Long::sum);
            deposits.get(id).add(11L);
        }
        List<String> onOldest =
                ids.stream().filter(id -> oldest.name.equals(home.get(id))).toList();
        assertThat(onOldest).as("accounts on the coordinator").isNotEmpty();
        // the kill under load takes a node running the history projection: some of its slices move mid-stream
        workers = SampleCluster.shardsHostedBy(oldest, AccountHistory.PROJECTION);
        assertThat(workers)
                .as("workers of the history projection on the coordinator %s", oldest.name)
                .isPositive();
        java.util.concurrent.atomic.AtomicBoolean keepDepositing = new java.util.concurrent.atomic.AtomicBoolean(true);
        Map<String, Long> keyedDuringKill = new java.util.concurrent.ConcurrentHashMap<>();
        Map<String, List<Long>> depositsDuringKill = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicLong retries = new java.util.concurrent.atomic.AtomicLong();
        Thread client = new Thread(() -> {
            for (int round = 0; keepDepositing.get() || round < 2; round++) {
                for (String id : onOldest) {
                    String key = "during-" + id + "-" + round;
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                    while (true) {
                        JsonHttp.Answer a;
                        try {
                            a = keyedDeposit(last, id, 13, key);
                        } catch (UncheckedIOException e) {
                            a = null;
                        }
                        if (a != null && a.status() == 200) {
                            keyedDuringKill.merge(id, 13L, Long::sum);
                            depositsDuringKill
                                    .computeIfAbsent(id, k -> new ArrayList<>())
                                    .add(13L);
                            break;
                        }
                        retries.incrementAndGet();
                        if (System.nanoTime() > deadline) {
                            throw new AssertionError("Keyed deposit " + key + " not answered in 90 s: " + a);
                        }
                        sleepQuietly(50);
                    }
                }
            }
        });
        java.util.concurrent.atomic.AtomicReference<Throwable> clientFailure =
                new java.util.concurrent.atomic.AtomicReference<>();
        client.setUncaughtExceptionHandler((t, e) -> clientFailure.set(e));
        client.start();
        recovery = killAndAwaitAllAnswering(oldest, List.of(last), ids);
        keepDepositing.set(false);
        client.join(TimeUnit.MINUTES.toMillis(5));
        assertThat(client.isAlive()).as("the keyed client finished").isFalse();
        assertThat(clientFailure.get()).as("keyed client failure").isNull();
        keyedDuringKill.forEach((id, sum) -> expected.merge(id, sum, Long::sum));
        depositsDuringKill.forEach((id, amounts) -> deposits.get(id).addAll(amounts));
        report("Keyed deposits through the kill of the coordinator: " + keyedDuringKill.size() + " accounts, "
                + retries.get() + " retries with the same key, each key counted once");
        for (Map.Entry<String, String> e : answeredBefore.entrySet()) {
            JsonHttp.Answer again = keyedDeposit(last, e.getKey(), 11, "before-" + e.getKey());
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.text())
                    .as("a key answered before the kill answers the same body after it")
                    .isEqualTo(e.getValue());
        }
        report("Killed coordinator " + oldest.name + " (" + lived + " accounts and " + workers
                + " workers of the history projection lived there): all " + ids.size()
                + " accounts answered again from " + last.name + " after " + recovery + " ms (one pass over them"
                + " takes " + pass + " ms when nothing fails)");

        for (String id : ids) {
            home.put(id, last.name);
        }
        assertOneHomeEach(List.of(last), ids, expected, home);

        // The killed coordinator served the shared database file: the last node must still store new deposits.
        for (int i = 0; i < ids.size(); i += 5) {
            String id = ids.get(i);
            Seen s = deposit(last, id, 3);
            expected.merge(id, 3L, Long::sum);
            deposits.get(id).add(3L);
            assertThat(s.balance())
                    .as("deposit into %s after the node serving the database died", id)
                    .isEqualTo(expected.get(id));
        }
        assertThat(SampleCluster.coordinatorSeenBy(last)).isEqualTo(last.name);
        assertThat(SampleCluster.membersSeenBy(last)).containsExactly(last.name);

        // Every account's history: each acknowledged deposit once, in order, summing to the balance, although the
        // nodes that ran the projection's slices died with pages in hand.
        long historyStart = System.nanoTime();
        HistoryCheck.awaitHistories(deposits, expected, id -> last.url(""), Duration.ofSeconds(30));
        report("The history of all " + ids.size() + " accounts held their "
                + deposits.values().stream().mapToInt(List::size).sum() + " acknowledged deposits once each "
                + (System.nanoTime() - historyStart) / 1_000_000 + " ms after the last deposit was answered");
    }

    // ---- steps ---------------------------------------------------------------------------------------------------

    private static Seen deposit(Node via, String id, long amount) {
        JsonHttp.Answer a = HTTP.postJson(via.url("/accounts/" + id + "/deposit"), "{\"amount\": " + amount + "}");
        assertThat(a.status())
                .as("deposit %d into %s through %s: %s", amount, id, via.name, a)
                .isEqualTo(200);
        return seen(id, a);
    }

    private static JsonHttp.Answer keyedDeposit(Node via, String id, long amount, String key) {
        return HTTP.postJson(via.url("/accounts/" + id + "/deposit"), "{\"amount\": " + amount + "}", key);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Seen seen(String id, JsonHttp.Answer a) {
        JsonNode body = a.body();
        assertThat(body.get("id").asString()).isEqualTo(id);
        return new Seen(body.get("balance").longValue(), body.get("node").asString());
    }

    /**
     * Every account answers through every given node with its expected balance and one home (the expected one when
     * known), and the nodes' own listings of their entities name each account on its home only.
     */
    private static void assertOneHomeEach(
            List<Node> nodes, List<String> ids, Map<String, Long> expected, Map<String, String> home) {
        Set<String> names = nodes.stream().map(n -> n.name).collect(Collectors.toSet());
        for (String id : ids) {
            String seenHome = null;
            for (Node via : nodes) {
                JsonHttp.Answer a = HTTP.get(via.url("/accounts/" + id));
                assertThat(a.status())
                        .as("balance of %s through %s: %s", id, via.name, a)
                        .isEqualTo(200);
                Seen s = seen(id, a);
                assertThat(s.balance())
                        .as("balance of %s through %s", id, via.name)
                        .isEqualTo(expected.get(id));
                assertThat(s.node()).as("home of %s", id).isIn(names);
                if (seenHome == null) {
                    seenHome = s.node();
                } else {
                    assertThat(s.node())
                            .as("home of %s through %s", id, via.name)
                            .isEqualTo(seenHome);
                }
            }
            String known = home.get(id);
            if (known != null) {
                assertThat(seenHome).as("home of %s", id).isEqualTo(known);
            } else {
                home.put(id, seenHome);
            }
        }
        Map<String, String> listedOn = new TreeMap<>();
        for (Node node : nodes) {
            for (String id : SampleCluster.accountsListedBy(node, ACCOUNT_ID)) {
                String other = listedOn.put(id, node.name);
                assertThat(other)
                        .as("%s is listed on %s and on %s", id, other, node.name)
                        .isNull();
            }
        }
        for (String id : ids) {
            assertThat(listedOn.get(id)).as("node listing %s", id).isEqualTo(home.get(id));
        }
    }

    /** How long one sequential pass of reads over every account takes, to tell failover time from test overhead. */
    private static long passMillis(List<Node> nodes, List<String> ids) {
        long start = System.nanoTime();
        for (int i = 0; i < ids.size(); i++) {
            JsonHttp.Answer a = HTTP.get(nodes.get(i % nodes.size()).url("/accounts/" + ids.get(i)));
            assertThat(a.status()).as("balance of %s: %s", ids.get(i), a).isEqualTo(200);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** Kills a node with SIGKILL and returns the milliseconds until every account answered through the others. */
    private static long killAndAwaitAllAnswering(Node victim, List<Node> survivors, List<String> ids)
            throws InterruptedException {
        Process p = victim.process;
        assertThat(p).isNotNull();
        long start = System.nanoTime();
        System.out.println("Killing " + victim.name + " with SIGKILL at " + Instant.now());
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS))
                .as("%s exits after SIGKILL", victim.name)
                .isTrue();
        List<String> pending = new ArrayList<>(ids);
        long deadline = start + RECOVERY.toNanos();
        int round = 0;
        Map<Integer, Integer> statuses = new TreeMap<>();
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) {
                fail(
                        "After killing %s, %d accounts still do not answer through %s after %s (statuses seen: %s):"
                                + " %s",
                        victim.name, pending.size(), survivors, RECOVERY, statuses, pending);
            }
            int before = pending.size();
            for (int i = 0; i < pending.size(); ) {
                Node via = survivors.get((i + round) % survivors.size());
                int status;
                try {
                    status = HTTP.get(via.url("/accounts/" + pending.get(i))).status();
                } catch (UncheckedIOException e) {
                    status = -1;
                }
                statuses.merge(status, 1, Integer::sum);
                if (status == 200) {
                    pending.remove(i);
                } else {
                    assertThat(status)
                            .as("status of an account while the cluster recovers")
                            .isIn(503, -1);
                    i++;
                }
            }
            round++;
            if (pending.size() == before) {
                SampleCluster.pause(Duration.ofMillis(50));
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("All accounts answered at " + Instant.now());
        System.out.println("Statuses while recovering from the kill of " + victim.name + ": " + statuses);
        return millis;
    }

    /**
     * Each node's /actuator/prometheus: asks counted by outcome where they were sent, the gauges agree with the
     * cluster (one coordinator, three members seen by each, every shard hosted once).
     */
    private static void assertMetersScraped(List<String> ids) {
        double asks = 0;
        double coordinators = 0;
        double hosted = 0;
        for (Node node : NODES) {
            JsonHttp.Answer a = HTTP.get(node.url("/actuator/prometheus"));
            assertThat(a.status()).as("prometheus of %s: %s", node.name, a).isEqualTo(200);
            String text = a.text();
            asks += meter(text, "sharding_asks_seconds_count", "outcome=\"success\"");
            assertThat(meter(text, "sharding_asks_seconds_count", "outcome=\"failed\""))
                    .as("no failed ask on %s", node.name)
                    .isZero();
            assertThat(meter(text, "sharding_members", ""))
                    .as("members seen by %s", node.name)
                    .isEqualTo(3);
            coordinators += meter(text, "sharding_coordinator", "");
            hosted += meter(text, "sharding_shards_hosted", "type=\"account\"");
            assertThat(meter(text, "sharding_store_write_seconds_count", "outcome=\"success\""))
                    .as("state writes on %s", node.name)
                    .isPositive();
        }
        assertThat(asks).as("two deposits and three reads per account").isGreaterThanOrEqualTo(5.0 * ids.size());
        assertThat(coordinators).isEqualTo(1);
        long shards = ids.stream()
                .map(id -> dev.sharding.EntityType.shardOf(id, 100))
                .distinct()
                .count();
        assertThat(hosted).as("every shard of the accounts hosted once").isEqualTo(shards);
    }

    /** The sum of a meter's samples whose labels contain a text, in Prometheus' text format. */
    private static double meter(String text, String name, String label) {
        double sum = 0;
        boolean found = false;
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                if (line.contains(label)) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    found = true;
                }
            }
        }
        assertThat(found)
                .as("%s{%s} in %s", name, label, text.length() > 2000 ? text.substring(0, 2000) : text)
                .isTrue();
        return sum;
    }

    private static void report(String line) {
        cluster.report("recovery-times.txt", line);
    }
}
