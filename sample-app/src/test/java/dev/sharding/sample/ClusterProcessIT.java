package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The sample as users run it: three JVMs of the shipped jar on loopback, driven over HTTP. Every account has exactly
 * one home whichever node is asked; after a member is killed with SIGKILL, and then the coordinator, every account
 * answers again from the survivors (accounts that lived on a killed node start again from 0, since their state is in
 * memory only; the others keep theirs).
 *
 * <p>Node logs are written to {@code target/cluster-it/}; their tails are printed when the test fails.
 */
class ClusterProcessIT {

    private static final int ACCOUNTS = 100;

    private static final Pattern ACCOUNT_ID = Pattern.compile("it-acct-\\d{3}");

    private static final Duration FORMATION = Duration.ofSeconds(180);

    private static final Duration RECOVERY = Duration.ofSeconds(60);

    private static final String CLUSTER = "sample-it-" + UUID.randomUUID();

    private static final List<Node> NODES = new ArrayList<>();

    private static final Thread KILL_ON_EXIT = new Thread(ClusterProcessIT::destroyAll, "cluster-it-cleanup");

    private static final JsonHttp HTTP = new JsonHttp(Duration.ofSeconds(15));

    private static Path logDir = Paths.get("target", "cluster-it");

    /** One node: its process, ports and log. */
    private static final class Node {

        final String name;

        final int httpPort;

        final int jgroupsPort;

        final Path log;

        @Nullable Process process;

        Node(String name, int httpPort, int jgroupsPort, Path log) {
            this.name = name;
            this.httpPort = httpPort;
            this.jgroupsPort = jgroupsPort;
            this.log = log;
        }

        String url(String path) {
            return "http://127.0.0.1:" + httpPort + path;
        }

        boolean alive() {
            return process != null && process.isAlive();
        }

        @Override
        public String toString() {
            return name + " (http " + httpPort + ", jgroups " + jgroupsPort + ")";
        }
    }

    /** What an account answered: its balance and the node hosting it. */
    private record Seen(long balance, String node) {
    }

    @BeforeAll
    static void startCluster() throws Exception {
        Runtime.getRuntime().addShutdownHook(KILL_ON_EXIT);
        Path jar = Paths.get(System.getProperty("sample.jar", "target/sample-app.jar")).toAbsolutePath();
        assertThat(jar).as("the sample jar (system property sample.jar)").isRegularFile();
        logDir = jar.getParent().resolve("cluster-it");
        Files.createDirectories(logDir);
        Files.deleteIfExists(logDir.resolve("recovery-times.txt"));

        int[] ports = freePorts(6);
        String initialHosts = "127.0.0.1[" + ports[3] + "],127.0.0.1[" + ports[4] + "],127.0.0.1[" + ports[5] + "]";
        for (int i = 0; i < 3; i++) {
            String name = "n" + (i + 1);
            NODES.add(new Node(name, ports[i], ports[3 + i], logDir.resolve(name + ".log")));
        }
        try {
            // The first node alone, so that it is the oldest member and hosts the coordinator; then the other two.
            start(NODES.get(0), jar, initialHosts);
            awaitCluster(List.of(NODES.get(0)));
            start(NODES.get(1), jar, initialHosts);
            start(NODES.get(2), jar, initialHosts);
            awaitCluster(NODES);
        } catch (Throwable t) {
            printLogTails();
            throw t;
        }
    }

    @AfterAll
    static void stopCluster() {
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(KILL_ON_EXIT);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    @Test
    void everyAccountHasOneHomeAndAnswersAgainAfterAMemberAndTheCoordinatorAreKilled() throws Exception {
        try {
            run();
        } catch (Throwable t) {
            printLogTails();
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
        Map<String, String> home = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            Seen first = deposit(NODES.get(i % 3), id, i + 1);
            assertThat(first.balance()).as("first deposit into %s", id).isEqualTo(i + 1);
            Seen second = deposit(NODES.get((i + 1) % 3), id, 1000);
            assertThat(second.balance()).as("second deposit into %s", id).isEqualTo(i + 1001);
            assertThat(second.node()).as("home of %s seen through two nodes", id).isEqualTo(first.node());
            expected.put(id, (long) i + 1001);
            home.put(id, first.node());
        }
        assertOneHomeEach(NODES, ids, expected, home);
        Map<String, Long> perNode = home.values().stream()
                .collect(Collectors.groupingBy(n -> n, TreeMap::new, Collectors.counting()));
        System.out.println("Accounts per node: " + perNode);
        assertThat(perNode.keySet()).as("every node hosts accounts")
                .containsExactlyInAnyOrderElementsOf(NODES.stream().map(n -> n.name).toList());

        // Kill a member that is not the coordinator.
        String coordinator = coordinatorSeenBy(NODES.get(0));
        assertThat(coordinator).as("the first node started is the oldest").isEqualTo(NODES.get(0).name);
        Node member = NODES.stream().filter(n -> !n.name.equals(coordinator)).findFirst().orElseThrow();
        List<Node> survivors = NODES.stream().filter(n -> n != member).toList();
        long lost = home.values().stream().filter(member.name::equals).count();
        long pass = passMillis(survivors, ids);
        long recovery = killAndAwaitAllAnswering(member, survivors, ids);
        report("Killed member " + member.name + " (" + lost + " accounts lived there): all " + ids.size()
                + " accounts answered again after " + recovery + " ms (one pass over them takes " + pass
                + " ms when nothing fails)");

        for (String id : ids) {
            if (home.get(id).equals(member.name)) {
                expected.put(id, 0L);
                home.remove(id);
            }
        }
        assertOneHomeEach(survivors, ids, expected, home);

        // Deposit into every account again, so that every one has a balance to keep or lose.
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            Seen s = deposit(survivors.get(i % 2), id, 7);
            expected.merge(id, 7L, Long::sum);
            assertThat(s.balance()).as("deposit into %s after the first kill", id).isEqualTo(expected.get(id));
            home.put(id, s.node());
        }
        assertOneHomeEach(survivors, ids, expected, home);

        // Kill the coordinator: the last node takes over the coordinator and every account.
        Node oldest = survivors.stream().filter(n -> n.name.equals(coordinator)).findFirst().orElseThrow();
        Node last = survivors.stream().filter(n -> n != oldest).findFirst().orElseThrow();
        assertThat(coordinatorSeenBy(last)).isEqualTo(oldest.name);
        lost = home.values().stream().filter(oldest.name::equals).count();
        pass = passMillis(List.of(last), ids);
        recovery = killAndAwaitAllAnswering(oldest, List.of(last), ids);
        report("Killed coordinator " + oldest.name + " (" + lost + " accounts lived there): all " + ids.size()
                + " accounts answered again from " + last.name + " after " + recovery + " ms (one pass over them"
                + " takes " + pass + " ms when nothing fails)");

        for (String id : ids) {
            if (!home.get(id).equals(last.name)) {
                expected.put(id, 0L);
            }
            home.put(id, last.name);
        }
        assertOneHomeEach(List.of(last), ids, expected, home);
        assertThat(coordinatorSeenBy(last)).isEqualTo(last.name);
        assertThat(membersSeenBy(last)).containsExactly(last.name);
    }

    // ---- steps ---------------------------------------------------------------------------------------------------

    private static Seen deposit(Node via, String id, long amount) {
        JsonHttp.Answer a = HTTP.postJson(via.url("/accounts/" + id + "/deposit"), "{\"amount\": " + amount + "}");
        assertThat(a.status()).as("deposit %d into %s through %s: %s", amount, id, via.name, a).isEqualTo(200);
        return seen(id, a);
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
    private static void assertOneHomeEach(List<Node> nodes, List<String> ids, Map<String, Long> expected,
            Map<String, String> home) {
        Set<String> names = nodes.stream().map(n -> n.name).collect(Collectors.toSet());
        for (String id : ids) {
            String seenHome = null;
            for (Node via : nodes) {
                JsonHttp.Answer a = HTTP.get(via.url("/accounts/" + id));
                assertThat(a.status()).as("balance of %s through %s: %s", id, via.name, a).isEqualTo(200);
                Seen s = seen(id, a);
                assertThat(s.balance()).as("balance of %s through %s", id, via.name).isEqualTo(expected.get(id));
                assertThat(s.node()).as("home of %s", id).isIn(names);
                if (seenHome == null) {
                    seenHome = s.node();
                } else {
                    assertThat(s.node()).as("home of %s through %s", id, via.name).isEqualTo(seenHome);
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
            JsonHttp.Answer a = HTTP.get(node.url("/actuator/sharding/account"));
            assertThat(a.status()).as("/actuator/sharding/account of %s: %s", node.name, a).isEqualTo(200);
            for (String id : accountIdsIn(a.body())) {
                String other = listedOn.put(id, node.name);
                assertThat(other).as("%s is listed on %s and on %s", id, other, node.name).isNull();
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
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s exits after SIGKILL", victim.name).isTrue();
        List<String> pending = new ArrayList<>(ids);
        long deadline = start + RECOVERY.toNanos();
        int round = 0;
        Map<Integer, Integer> statuses = new TreeMap<>();
        while (!pending.isEmpty()) {
            if (System.nanoTime() > deadline) {
                fail("After killing %s, %d accounts still do not answer through %s after %s (statuses seen: %s):"
                        + " %s", victim.name, pending.size(), survivors, RECOVERY, statuses, pending);
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
                    assertThat(status).as("status of an account while the cluster recovers").isIn(503, -1);
                    i++;
                }
            }
            round++;
            if (pending.size() == before) {
                pause(Duration.ofMillis(50));
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("All accounts answered at " + Instant.now());
        System.out.println("Statuses while recovering from the kill of " + victim.name + ": " + statuses);
        return millis;
    }

    // ---- cluster -------------------------------------------------------------------------------------------------

    private static void start(Node node, Path jar, String initialHosts) throws IOException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-jar", jar.toString(),
                "--server.port=" + node.httpPort,
                "--sharding.cluster-name=" + CLUSTER,
                "--sharding.node-name=" + node.name,
                "--sharding.jgroups.bind-address=127.0.0.1",
                "--sharding.jgroups.bind-port=" + node.jgroupsPort,
                "--sharding.jgroups.initial-hosts=" + initialHosts);
        Files.writeString(node.log, String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
        node.process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log.toFile())).start();
        System.out.println("Started " + node + ", log " + node.log);
    }

    /** Waits until every given node is UP and sees exactly these nodes as members. */
    private static void awaitCluster(List<Node> nodes) {
        List<String> names = nodes.stream().map(n -> n.name).toList();
        long deadline = System.nanoTime() + FORMATION.toNanos();
        for (Node node : nodes) {
            String last = "no answer yet";
            while (true) {
                if (!node.alive()) {
                    fail("%s exited with %s while the cluster formed; see %s", node, node.process == null ? "?"
                            : node.process.exitValue(), node.log);
                }
                if (System.nanoTime() > deadline) {
                    fail("%s did not become UP with members %s within %s; last seen: %s", node, names, FORMATION,
                            last);
                }
                try {
                    JsonHttp.Answer health = HTTP.get(node.url("/actuator/health"));
                    last = "health " + health;
                    if (health.status() == 200 && health.json() != null
                            && "UP".equals(health.json().path("status").asString())) {
                        List<String> members = membersSeenBy(node);
                        last = "members " + members;
                        if (new HashSet<>(members).equals(new HashSet<>(names))) {
                            break;
                        }
                    }
                } catch (UncheckedIOException | AssertionError e) {
                    last = e.getMessage();
                }
                pause(Duration.ofMillis(250));
            }
        }
    }

    private static JsonNode sharding(Node node) {
        JsonHttp.Answer a = HTTP.get(node.url("/actuator/sharding"));
        assertThat(a.status()).as("/actuator/sharding of %s: %s", node.name, a).isEqualTo(200);
        return a.body();
    }

    private static List<String> membersSeenBy(Node node) {
        List<String> names = new ArrayList<>();
        for (JsonNode m : sharding(node).path("members")) {
            names.add(nameOf(m));
        }
        return names;
    }

    private static String coordinatorSeenBy(Node node) {
        return nameOf(sharding(node).path("coordinator"));
    }

    private static String nameOf(JsonNode member) {
        return member.isObject() ? member.path("name").asString() : member.asString();
    }

    /** Every account id anywhere in a document, whatever its shape. */
    private static Set<String> accountIdsIn(JsonNode doc) {
        Set<String> ids = new HashSet<>();
        collect(doc, s -> ACCOUNT_ID.matcher(s).matches(), ids);
        return ids;
    }

    private static void collect(JsonNode node, Predicate<String> wanted, Set<String> into) {
        if (node.isString() && wanted.test(node.asString())) {
            into.add(node.asString());
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (wanted.test(e.getKey())) {
                into.add(e.getKey());
            }
        }
        for (JsonNode child : node.values()) {
            collect(child, wanted, into);
        }
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0);
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private static void report(String line) {
        System.out.println(line);
        try {
            Files.writeString(logDir.resolve("recovery-times.txt"), line + System.lineSeparator(),
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("Cannot write the recovery times: " + e);
        }
    }

    private static void printLogTails() {
        for (Node node : NODES) {
            System.out.println("==== last lines of " + node + " (" + node.log + ")");
            try {
                List<String> lines = Files.readAllLines(node.log, StandardCharsets.UTF_8);
                lines.subList(Math.max(0, lines.size() - 80), lines.size()).forEach(System.out::println);
            } catch (IOException e) {
                System.out.println("(cannot read: " + e + ")");
            }
        }
    }

    private static void destroyAll() {
        for (Node node : NODES) {
            Process p = node.process;
            if (p != null && p.isAlive()) {
                p.destroy();
            }
        }
        for (Node node : NODES) {
            Process p = node.process;
            if (p == null) {
                continue;
            }
            try {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
