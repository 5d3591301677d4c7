package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sharding.JgroupsSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Sample-app JVMs on loopback for process tests: free HTTP and JGroups ports, one log file per node, waits for the
 * cluster to form over HTTP, and stops every process it started (also from a shutdown hook if the test JVM dies).
 */
final class SampleCluster implements AutoCloseable {

    static final Duration FORMATION = Duration.ofSeconds(180);

    static final JsonHttp HTTP = new JsonHttp(Duration.ofSeconds(15));

    private final String clusterName = "sample-it-" + UUID.randomUUID();

    private final Path jar;

    private final Path logDir;

    private final List<Node> nodes = new ArrayList<>();

    private final String initialHosts;

    private final Thread killOnExit = new Thread(this::destroyAll, "sample-cluster-cleanup");

    /**
     * Plans a cluster of up to {@code size} nodes named n1, n2, ..., with their ports; none is started yet.
     *
     * @param logSubdirectory where under target/ the node logs go
     * @param size how many nodes may be started
     */
    SampleCluster(String logSubdirectory, int size) throws IOException {
        this.jar = Paths.get(System.getProperty("sample.jar", "target/sample-app.jar"))
                .toAbsolutePath();
        assertThat(jar).as("the sample jar (system property sample.jar)").isRegularFile();
        this.logDir = jar.getParent().resolve(logSubdirectory);
        Files.createDirectories(logDir);
        deleteTree(logDir.resolve("data")); // the nodes' shared H2 database, from an earlier run
        int[] ports = freePorts(size * 2);
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String name = "n" + (i + 1);
            Path log = logDir.resolve(name + ".log");
            Files.deleteIfExists(log); // from an earlier run; this run's starts append to it
            nodes.add(new Node(name, ports[i], ports[size + i], log));
            hosts.add("127.0.0.1[" + ports[size + i] + "]");
        }
        this.initialHosts = String.join(",", hosts);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** One node: its process, ports and log. */
    static final class Node {

        final String name;

        final int httpPort;

        final int jgroupsPort;

        final Path log;

        @Nullable
        Process process;

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

    /**
     * The settings of a node of this cluster in the test's own JVM, in a planned node's place: same cluster name,
     * built-in TCP stack on its JGroups port, same initial hosts.
     *
     * @param node the planned node whose name and port it takes
     * @return the settings
     */
    dev.sharding.ShardingSettings settings(Node node) {
        return dev.sharding.ShardingSettings.defaults()
                .withClusterName(clusterName)
                .withNodeName(node.name)
                .withJgroups(JgroupsSettings.defaults()
                        .withNetwork("127.0.0.1", node.jgroupsPort, JgroupsSettings.DEFAULT_PORT_RANGE, initialHosts));
    }

    List<Node> nodes() {
        return nodes;
    }

    Node node(int index) {
        return nodes.get(index);
    }

    Path logDir() {
        return logDir;
    }

    /** Starts a node's JVM (it joins whatever nodes run). */
    void start(Node node) throws IOException {
        start(node, new String[0]);
    }

    /**
     * Starts a node's JVM with more command-line arguments.
     *
     * @param node the node, whose ports and name it takes
     * @param moreArgs further arguments, after the cluster's own
     */
    void start(Node node, String... moreArgs) throws IOException {
        launch(node, true, moreArgs);
    }

    /**
     * Starts a node's JVM with no initial-hosts argument: it must find the others by the discovery its arguments
     * choose.
     *
     * @param node the node, whose ports and name it takes
     * @param moreArgs further arguments, after the cluster's own
     */
    void startWithoutHostList(Node node, String... moreArgs) throws IOException {
        launch(node, false, moreArgs);
    }

    private void launch(Node node, boolean hostList, String... moreArgs) throws IOException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                jar.toString(),
                "--server.port=" + node.httpPort,
                "--sharding.cluster-name=" + clusterName,
                "--sharding.node-name=" + node.name,
                "--sharding.jgroups.bind-address=127.0.0.1",
                "--sharding.jgroups.bind-port=" + node.jgroupsPort));
        if (hostList) {
            command.add("--sharding.jgroups.initial-hosts=" + initialHosts);
        }
        command.addAll(List.of(moreArgs));
        // appended: a node started again keeps the log of its previous run above
        Files.writeString(
                node.log,
                String.join(" ", command) + System.lineSeparator(),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        // every node runs in the same folder, so they share the default embedded database file data/sharding
        node.process = new ProcessBuilder(command)
                .directory(logDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log.toFile()))
                .start();
        System.out.println("Started " + node + ", log " + node.log);
    }

    /**
     * Runs the jar in a node's place until it exits by itself, as a one-shot command does.
     *
     * @param node the node whose ports, name and log it takes
     * @param timeout how long it may run
     * @param moreArgs further arguments, after the cluster's own
     * @return its exit status; its output is in the node's log
     */
    int runToExit(Node node, Duration timeout, String... moreArgs) throws IOException, InterruptedException {
        start(node, moreArgs);
        Process p = java.util.Objects.requireNonNull(node.process);
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail("%s was still running after %s; see %s", node, timeout, node.log);
        }
        return p.exitValue();
    }

    /** Stops a node with SIGTERM (a graceful leave) and waits until its JVM has exited. */
    void stop(Node node) throws InterruptedException {
        Process p = java.util.Objects.requireNonNull(node.process);
        p.destroy();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail("%s did not exit within 90 s of SIGTERM; see %s", node, node.log);
        }
    }

    /** Waits until every given node is UP and sees exactly these nodes as members. */
    void awaitCluster(List<Node> members) {
        List<String> names = members.stream().map(n -> n.name).toList();
        long deadline = System.nanoTime() + FORMATION.toNanos();
        for (Node node : members) {
            String last = "no answer yet";
            while (true) {
                for (Node member : members) {
                    // any of them: a member that died at its start would leave the others waiting for it in vain
                    if (member.process != null && !member.process.isAlive()) {
                        fail(
                                "%s exited with %s while the cluster formed; see %s",
                                member, member.process.exitValue(), member.log);
                    }
                }
                if (System.nanoTime() > deadline) {
                    fail("%s did not become UP with members %s within %s; last seen: %s", node, names, FORMATION, last);
                }
                try {
                    JsonHttp.Answer health = HTTP.get(node.url("/actuator/health"));
                    last = "health " + health;
                    if (health.status() == 200
                            && health.json() != null
                            && "UP".equals(health.json().path("status").asString())) {
                        List<String> seen = membersSeenBy(node);
                        last = "members " + seen;
                        if (new HashSet<>(seen).equals(new HashSet<>(names))) {
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

    static JsonNode sharding(Node node) {
        JsonHttp.Answer a = HTTP.get(node.url("/actuator/sharding"));
        assertThat(a.status()).as("/actuator/sharding of %s: %s", node.name, a).isEqualTo(200);
        return a.body();
    }

    static List<String> membersSeenBy(Node node) {
        List<String> names = new ArrayList<>();
        for (JsonNode m : sharding(node).path("members")) {
            names.add(nameOf(m));
        }
        return names;
    }

    static String coordinatorSeenBy(Node node) {
        return nameOf(sharding(node).path("coordinator"));
    }

    static String nameOf(JsonNode member) {
        return member.isObject() ? member.path("name").asString() : member.asString();
    }

    /** The account ids this node's region lists, from /actuator/sharding/account. */
    static Set<String> accountsListedBy(Node node, Pattern accountId) {
        JsonHttp.Answer a = HTTP.get(node.url("/actuator/sharding/account"));
        assertThat(a.status())
                .as("/actuator/sharding/account of %s: %s", node.name, a)
                .isEqualTo(200);
        Set<String> ids = new HashSet<>();
        for (JsonNode shard : a.body().path("shards")) {
            for (JsonNode id : shard.path("entities")) {
                if (accountId.matcher(id.asString()).matches()) {
                    ids.add(id.asString());
                }
            }
        }
        return ids;
    }

    /** How many shards of the account type this node hosts, from /actuator/sharding/account. */
    static int shardsHostedBy(Node node) {
        return shardsHostedBy(node, "account");
    }

    /**
     * How many shards of an entity type this node hosts, from /actuator/sharding/{type}; for a daemon process or a
     * projection, how many of its workers.
     */
    static int shardsHostedBy(Node node, String type) {
        JsonHttp.Answer a = HTTP.get(node.url("/actuator/sharding/" + type));
        assertThat(a.status())
                .as("/actuator/sharding/%s of %s: %s", type, node.name, a)
                .isEqualTo(200);
        return a.body().path("shards").size();
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * Ports free now, below the range the kernel takes ephemeral ports from: a port from that range, free when it was
     * picked, can be taken by any outgoing connection (a node's own discovery, for one) before the node binds it.
     */
    static int[] freePorts(int count) throws IOException {
        int ephemeralStart = ephemeralPortRangeStart();
        int low = 10_000;
        int high = Math.max(low + 1_000, ephemeralStart);
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0, tries = 0; i < count; tries++) {
                if (tries > 10_000) {
                    throw new IOException("No free port between " + low + " and " + high);
                }
                int port = random.nextInt(low, high);
                try {
                    ServerSocket s = new ServerSocket();
                    s.setReuseAddress(false);
                    s.bind(new InetSocketAddress(port));
                    sockets.add(s);
                    ports[i++] = port;
                } catch (IOException taken) {
                    // in use: try another
                }
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    /** The first port of the kernel's ephemeral range (Linux), or 32768, the usual start, where it cannot be read. */
    static int ephemeralPortRangeStart() {
        try {
            // read by line: procfs reports a size of 0, and a read of the whole file may stop after one byte
            List<String> lines = Files.readAllLines(Paths.get("/proc/sys/net/ipv4/ip_local_port_range"));
            int start = Integer.parseInt(lines.get(0).trim().split("\\s+")[0]);
            return start > 11_000 ? start : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    /** Pauses a polling loop between two looks at the cluster. */
    static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    void report(String file, String line) {
        System.out.println(line);
        try {
            Files.writeString(
                    logDir.resolve(file),
                    line + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("Cannot write " + file + ": " + e);
        }
    }

    void printLogTails() {
        for (Node node : nodes) {
            if (node.process == null) {
                continue;
            }
            System.out.println("==== last lines of " + node + " (" + node.log + ")");
            try {
                List<String> lines = Files.readAllLines(node.log, StandardCharsets.UTF_8);
                lines.subList(Math.max(0, lines.size() - 80), lines.size()).forEach(System.out::println);
            } catch (IOException e) {
                System.out.println("(cannot read: " + e + ")");
            }
        }
    }

    /** SIGTERM to every node still running, SIGKILL to those that do not exit in time. */
    void destroyAll() {
        for (Node node : nodes) {
            Process p = node.process;
            if (p != null && p.isAlive()) {
                p.destroy();
            }
        }
        for (Node node : nodes) {
            Process p = node.process;
            if (p == null) {
                continue;
            }
            try {
                if (!p.waitFor(90, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    /** Every entry of a map whose value is the node's name. */
    static long countOn(Map<String, String> home, Node node) {
        return home.values().stream().filter(node.name::equals).count();
    }
}
