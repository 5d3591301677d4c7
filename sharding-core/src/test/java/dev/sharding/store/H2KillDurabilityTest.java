package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The product's default store is an H2 file database shared by the nodes started from one folder: the first node to
 * open it owns the file and serves it to the others ({@code AUTO_SERVER}). These tests kill the owner with SIGKILL
 * while both nodes write, let the other node take the file over and write on, kill it too, and then check that every
 * write either node acknowledged is in the file; with the product's URL, and with URLs a user writes that leave H2's
 * write delay at its default (500 ms, when a commit returns before it is written): a plain file URL (one node) and
 * {@code AUTO_SERVER} alone.
 *
 * <p>What makes it hold: the store sets H2's write delay to 0 where it is not (H2 keeps the setting in the file, so
 * the node that takes the file over finds it), and with it H2's MVStore writes a commit's changes to the file before
 * the commit returns. The file write is not forced to the disk, so this protects against the process dying, not
 * against the machine losing power. The surviving node needs its pool to discard the connections H2 reports broken
 * ({@link H2BrokenConnectionOverride}): H2 reconnects only connections in auto-commit mode, and the store writes in
 * transactions; the new connection then takes over the file once H2 sees its lock is stale (about 4 s here).
 *
 * <p>Cost: two child JVMs per shared URL, about 10 s each; one for the plain URL, about 3 s.
 */
class H2KillDurabilityTest {

    /** The URL options the product uses for its embedded database; the starter takes them from here. */
    static final String PRODUCT_OPTIONS = ";AUTO_SERVER=TRUE;AUTO_RECONNECT=TRUE;WRITE_DELAY=0";

    private final List<Child> children = new ArrayList<>();

    @TempDir
    Path folder;

    @AfterEach
    void stopChildren() throws InterruptedException {
        for (Child child : children) {
            child.process.destroyForcibly();
            child.process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "URL options [{0}]")
    @ValueSource(strings = {PRODUCT_OPTIONS, ";AUTO_SERVER=TRUE"})
    void everyAcknowledgedWriteSurvivesTheOwnerAndThenTheOtherNodeBeingKilled(String options) throws Exception {
        String url = "jdbc:h2:file:" + folder.resolve("sharding") + options;
        long t0 = System.nanoTime();
        Child owner = start(url, "a");
        waitFor(() -> owner.ready, "node a opening the database", owner);
        assertThat(owner.mode).as("how node a reaches the database").isEqualTo("embedded");
        Child guest = start(url, "b");
        waitFor(() -> guest.ready, "node b connecting to node a's server", guest);
        assertThat(guest.mode).as("how node b reaches the database").isEqualTo("remote");
        waitFor(() -> owner.acked.size() >= 500 && guest.acked.size() >= 200, "both nodes writing", owner, guest);

        System.out.printf(
                "killing node a %d ms after it started; node a %d, node b %d writes acknowledged%n",
                (System.nanoTime() - t0) / 1_000_000, owner.acked.size(), guest.acked.size());
        long kill = System.nanoTime();
        kill(owner);
        int guestAtKill = guest.acked.size();
        waitFor(() -> guest.acked.size() > guestAtKill, "node b's first write after node a was killed", guest);
        System.out.printf(
                "node b acknowledged a write again %d ms after the kill; %d of its writes failed%n",
                (System.nanoTime() - kill) / 1_000_000, guest.failed.size());
        waitFor(
                () -> guest.acked.size() >= guestAtKill + 300,
                "node b writing again after node a was killed (" + guestAtKill + " acknowledged at the kill)",
                guest);
        kill(guest);

        assertEveryAcknowledgedWriteStored(owner, guest);
    }

    @Test
    void everyAcknowledgedWriteOfAPlainFileUrlSurvivesTheNodeBeingKilled() throws Exception {
        Child node = start("jdbc:h2:file:" + folder.resolve("sharding"), "a");
        waitFor(() -> node.ready, "node a opening the database", node);
        waitFor(() -> node.acked.size() >= 2000, "node a writing", node);
        kill(node);
        assertEveryAcknowledgedWriteStored(node);
    }

    /**
     * The node serving the file stops (SIGSTOP) without closing its sockets, as a process that hangs does: H2's
     * client would wait for it forever. The other node's writes fail within about twice the store's query timeout
     * (the watchdog aborts the connection, the writer fails what it cannot begin), and once the node goes on
     * (SIGCONT) the other writes again; nothing acknowledged is lost across a kill of both afterwards.
     */
    @Test
    void writesOfTheOtherNodeFailPromptlyWhileTheOwnerIsStoppedAndSucceedOnceItGoesOn() throws Exception {
        String url = "jdbc:h2:file:" + folder.resolve("sharding") + PRODUCT_OPTIONS;
        Duration queryTimeout = Duration.ofSeconds(1);
        Child owner = start(url, "a", queryTimeout);
        waitFor(() -> owner.ready, "node a opening the database", owner);
        Child guest = start(url, "b", queryTimeout);
        waitFor(() -> guest.ready, "node b connecting to node a's server", guest);
        assertThat(guest.mode).as("how node b reaches the database").isEqualTo("remote");
        waitFor(() -> owner.acked.size() >= 500 && guest.acked.size() >= 200, "both nodes writing", owner, guest);

        signal(owner, "STOP");
        long stopped = System.nanoTime();
        int failedBefore = guest.failed.size();
        // every write node b has in flight fails, and so do the ones it makes after them
        waitFor(
                () -> guest.failed.size() >= failedBefore + 2 * H2DurabilityChild.IN_FLIGHT,
                "node b's writes failing while node a is stopped",
                queryTimeout.multipliedBy(2).plusSeconds(3),
                guest);
        System.out.printf(
                "node a stopped: node b's first failure after %d ms, %d failures after %d ms%n",
                (guest.firstFailureAfter(failedBefore) - stopped) / 1_000_000,
                guest.failed.size() - failedBefore,
                (System.nanoTime() - stopped) / 1_000_000);
        assertThat(guest.failed.get(guest.failed.size() - 1))
                .as("why node b's writes fail")
                .contains("sharding.store.query-timeout");

        int ackedBefore = guest.acked.size();
        signal(owner, "CONT");
        long resumed = System.nanoTime();
        waitFor(
                () -> guest.acked.size() >= ackedBefore + 300 && owner.acked.size() > 0,
                "node b writing again after node a went on",
                owner,
                guest);
        System.out.printf(
                "node a went on: node b writing again (300 acknowledged) %d ms later%n",
                (System.nanoTime() - resumed) / 1_000_000);
        kill(guest);
        kill(owner);
        assertEveryAcknowledgedWriteStored(owner, guest);
    }

    private static void signal(Child node, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(node.process.pid()))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0)
                .as("SIG" + signal + " sent to node " + node.name)
                .isTrue();
    }

    private static void kill(Child node) throws InterruptedException {
        node.process.destroyForcibly();
        assertThat(node.process.waitFor(10, TimeUnit.SECONDS))
                .as("node " + node.name + " killed")
                .isTrue();
        node.reader.join(10_000);
    }

    private void assertEveryAcknowledgedWriteStored(Child... nodes) throws Exception {
        Map<String, String> stored = readAll("jdbc:h2:file:" + folder.resolve("sharding"));
        for (Child child : nodes) {
            List<String> lost = child.acked.stream()
                    .filter(id -> !id.equals(stored.get(id)))
                    .sorted()
                    .toList();
            assertThat(lost)
                    .as(
                            "acknowledged writes of node %s missing from the file (of %d acknowledged, %d failed)",
                            child.name, child.acked.size(), child.failed.size())
                    .isEmpty();
        }
    }

    private static Map<String, String> readAll(String url) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                PreparedStatement ps =
                        c.prepareStatement("SELECT entity_id, state FROM sharding_entity_state WHERE type_name = ?")) {
            ps.setString(1, H2DurabilityChild.TYPE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), new String(rs.getBytes(2), StandardCharsets.UTF_8));
                }
            }
        }
        return rows;
    }

    private Child start(String url, String name) throws IOException {
        return start(url, name, JdbcStoreSettings.DEFAULT_QUERY_TIMEOUT);
    }

    private Child start(String url, String name, Duration queryTimeout) throws IOException {
        Path log = folder.resolve("node-" + name + ".log");
        ProcessBuilder builder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx96m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-Xshare:auto",
                        "-cp",
                        System.getProperty("java.class.path"),
                        H2DurabilityChild.class.getName(),
                        url,
                        name,
                        String.valueOf(queryTimeout.toMillis()))
                .redirectError(log.toFile());
        Child child = new Child(name, builder.start(), log);
        children.add(child);
        return child;
    }

    private static void waitFor(BooleanSupplier condition, String phase, Child... nodes) {
        waitFor(condition, phase, Duration.ofSeconds(60), nodes);
    }

    private static void waitFor(BooleanSupplier condition, String phase, Duration atMost, Child... nodes) {
        try {
            Awaitility.await(phase)
                    .atMost(atMost)
                    .pollInterval(Duration.ofMillis(20))
                    .failFast("a node died", () -> Arrays.stream(nodes).anyMatch(n -> !n.process.isAlive()))
                    .until(condition::getAsBoolean);
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            throw new AssertionError("Failed while " + phase + ": " + e.getMessage() + describe(nodes), e);
        }
    }

    private static String describe(Child... nodes) {
        StringBuilder text = new StringBuilder();
        for (Child node : nodes) {
            text.append("\nnode ")
                    .append(node.name)
                    .append(": alive=")
                    .append(node.process.isAlive())
                    .append(", acknowledged=")
                    .append(node.acked.size())
                    .append(", failed=")
                    .append(node.failed.size())
                    .append(", last failures=")
                    .append(node.failed.subList(Math.max(0, node.failed.size() - 3), node.failed.size()))
                    .append(", stderr=")
                    .append(tail(node.log));
        }
        return text.toString();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n  ", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** A child JVM and what it printed. */
    private static final class Child {

        final String name;
        final Process process;
        final Path log;
        final OutputStream stdin;
        final Set<String> acked = ConcurrentHashMap.newKeySet();
        final List<String> failed = new CopyOnWriteArrayList<>();
        final List<Long> failedAt = new CopyOnWriteArrayList<>();
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Thread reader;
        volatile boolean ready;
        volatile String mode = "";

        Child(String name, Process process, Path log) {
            this.name = name;
            this.process = process;
            this.log = log;
            this.stdin = process.getOutputStream();
            this.reader = new Thread(this::read, "child-" + name + "-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /** When the first failure after the given count was read ({@link System#nanoTime()}). */
        long firstFailureAfter(int count) {
            return failedAt.get(count);
        }

        private void read() {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("ACK ")) {
                        acked.add(line.substring(4));
                    } else if (line.startsWith("FAIL ")) {
                        failedAt.add(System.nanoTime());
                        failed.add(line.substring(5));
                    } else if (line.startsWith("READY ")) {
                        mode = line.substring(6);
                        ready = true;
                    }
                    if (!line.startsWith("ACK ")) {
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                lines.add("(stdout unreadable: " + e + ")");
            }
        }
    }
}
