package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order in which the processes sharing the embedded H2 file take it over, on lock files written as H2 writes
 * them: one claimant opens the file, the others wait for its server.
 */
class H2FileTakeoverTests {

    private static final long PATIENCE = TimeUnit.SECONDS.toNanos(30);

    @TempDir
    Path folder;

    @Test
    void nobodyServesTheFileSoTheFirstClaimsItAndTheOthersWaitForItsServer() throws Exception {
        Path database = folder.resolve("sharding");
        H2FileTakeover first = new H2FileTakeover(database, PATIENCE);
        H2FileTakeover second = new H2FileTakeover(database, PATIENCE);

        assertThat(first.await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
        CompletableFuture<H2FileTakeover.Turn> waiting = CompletableFuture.supplyAsync(second::await);
        // the claimant creates the lock file as H2 does, first without its server
        Files.writeString(lockFile(database), "#FileLock\nid=1a2b\nmethod=FILE\n");
        assertThat(waiting).isNotDone();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            writeLock(database, server.getLocalPort());
            first.release();
            assertThat(waiting.get(10, TimeUnit.SECONDS))
                    .isEqualTo(new H2FileTakeover.Turn(
                            H2FileTakeover.Kind.SERVED, "127.0.0.1:" + server.getLocalPort(), "1a2b"));
            assertThat(database.resolveSibling("sharding.takeover")).doesNotExist();
        }
    }

    @Test
    void theFirstNodeClaimsAFileWhoseFolderDoesNotExistYet() {
        Path database = folder.resolve("data").resolve("sharding");
        assertThat(new H2FileTakeover(database, PATIENCE).await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
        assertThat(database.resolveSibling("sharding.takeover")).exists();
    }

    @Test
    void aLockFileWithoutServerAndWithoutClaimIsLeftOverAndClaimedAtOnce() throws Exception {
        Path database = folder.resolve("sharding");
        // a process killed while it opened the file: H2's lock file written, its server not yet
        Files.writeString(lockFile(database), "#FileLock\nid=1a2b\nmethod=FILE\n");
        assertThat(new H2FileTakeover(database, PATIENCE).await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
    }

    @Test
    void aServedFileNeedsNoClaim() throws Exception {
        Path database = folder.resolve("sharding");
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            writeLock(database, server.getLocalPort());
            assertThat(new H2FileTakeover(database, PATIENCE).await().kind()).isEqualTo(H2FileTakeover.Kind.SERVED);
        }
        assertThat(database.resolveSibling("sharding.takeover")).doesNotExist();
    }

    @Test
    void aStoppingServersLockFileIsWaitedForAndTheFileClaimedOnceItIsGone() throws Exception {
        Path database = folder.resolve("sharding");
        writeLock(database, closedPort());
        CompletableFuture<H2FileTakeover.Turn> waiting =
                CompletableFuture.supplyAsync(() -> new H2FileTakeover(database, PATIENCE).await());
        assertThat(waiting).isNotDone();
        Files.delete(lockFile(database)); // the server closed the file
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo(H2FileTakeover.Turn.CLAIMED);
    }

    @Test
    void aKilledServersLockFileIsClaimedAfterTheGrace() throws Exception {
        Path database = folder.resolve("sharding");
        writeLock(database, closedPort());
        long start = System.nanoTime();
        assertThat(new H2FileTakeover(database, PATIENCE).await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(H2FileTakeover.CLOSING_GRACE_NANOS);
    }

    @Test
    void aLockFileLeftByAnOwnerKnownToBeGoneIsRemovedAndTheFileClaimedAtOnce() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/ns/pid")), "needs Linux's /proc");
        Path database = folder.resolve("sharding");
        writeLock(database, closedPort());
        Process gone = new ProcessBuilder("true").start();
        long started = gone.info().startInstant().orElseThrow().toEpochMilli();
        gone.waitFor(10, TimeUnit.SECONDS);
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> ProcessHandle.of(gone.pid()).isEmpty());
        writeOwner(database, "1a2b", gone.pid(), started);

        assertThat(new H2FileTakeover(database, PATIENCE).await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
        assertThat(lockFile(database))
                .as("the left-over lock file, removed so that H2 does not check it for two seconds")
                .doesNotExist();
    }

    @Test
    void anOwnerKilledButNotYetReapedByItsParentIsGone() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/ns/pid")), "needs Linux's /proc");
        Path database = folder.resolve("sharding");
        writeLock(database, closedPort());
        // a child of this JVM that exits is a zombie until the JVM's reaper waits for it: read through a shell whose
        // own child it is, and which does not wait
        Process shell = new ProcessBuilder("sh", "-c", "sleep 60 & echo $!; exec sleep 60").start();
        try {
            long child =
                    Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(shell.getInputStream()))
                            .readLine()
                            .strip());
            long started = ProcessHandle.of(child)
                    .orElseThrow()
                    .info()
                    .startInstant()
                    .orElseThrow()
                    .toEpochMilli();
            writeOwner(database, "1a2b", child, started);
            assertThat(H2FileOwner.gone(database.resolveSibling("sharding.owner"), "1a2b"))
                    .as("a running owner")
                    .isFalse();
            new ProcessBuilder("kill", "-9", Long.toString(child)).start().waitFor(10, TimeUnit.SECONDS);
            Awaitility.await("the killed owner a zombie")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> H2FileOwner.exited(child));
            assertThat(ProcessHandle.of(child)).as("still listed").isPresent();

            assertThat(new H2FileTakeover(database, PATIENCE).await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
            assertThat(lockFile(database)).doesNotExist();
        } finally {
            shell.destroyForcibly();
        }
    }

    @Test
    void aLockFileWhoseOwnerRunsOrIsNotKnownStaysForH2ToCheck() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/ns/pid")), "needs Linux's /proc");
        Path database = folder.resolve("sharding");
        ProcessHandle self = ProcessHandle.current();
        long started = self.info().startInstant().orElseThrow().toEpochMilli();
        // a frozen or cut-off owner still runs; an owner file of another lock says nothing of this one
        for (String[] owner : new String[][] {{"1a2b", Long.toString(self.pid())}, {"other", "999999999"}}) {
            writeLock(database, closedPort());
            writeOwner(database, owner[0], Long.parseLong(owner[1]), started);
            H2FileTakeover takeover = new H2FileTakeover(database, PATIENCE);
            assertThat(takeover.await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
            assertThat(lockFile(database))
                    .as("lock file with owner %s", owner[0])
                    .exists();
            takeover.release();
        }
    }

    @Test
    void theServingProcessNamesItselfTheOwner() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/ns/pid")), "needs Linux's /proc");
        Path database = folder.resolve("sharding");
        writeLock(database, closedPort());
        new H2FileTakeover(database, PATIENCE).serving();
        java.util.Properties owner = new java.util.Properties();
        try (var in = Files.newInputStream(database.resolveSibling("sharding.owner"))) {
            owner.load(in);
        }
        assertThat(owner.getProperty("key")).isEqualTo("1a2b");
        assertThat(owner.getProperty("pid"))
                .isEqualTo(Long.toString(ProcessHandle.current().pid()));
        assertThat(H2FileOwner.gone(database.resolveSibling("sharding.owner"), "1a2b"))
                .as("this process runs")
                .isFalse();
    }

    @Test
    void aClaimLeftByAKilledProcessIsTakenOver() throws Exception {
        Path database = folder.resolve("sharding");
        Path claim = Files.createFile(database.resolveSibling("sharding.takeover"));
        Files.setLastModifiedTime(claim, FileTime.from(Instant.now().minus(Duration.ofMinutes(1))));
        assertThat(new H2FileTakeover(database, PATIENCE).await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
    }

    @Test
    void aFreshClaimIsWaitedForUntilPatienceRunsOut() throws Exception {
        Path database = folder.resolve("sharding");
        H2FileTakeover holder = new H2FileTakeover(database, PATIENCE);
        assertThat(holder.await()).isEqualTo(H2FileTakeover.Turn.CLAIMED);
        H2FileTakeover impatient = new H2FileTakeover(database, TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(impatient.await()).isEqualTo(H2FileTakeover.Turn.GAVE_UP);
        holder.release();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> impatient.await() == H2FileTakeover.Turn.CLAIMED);
    }

    private static Path lockFile(Path database) {
        return database.resolveSibling("sharding.lock.db");
    }

    /** A lock file as H2 writes it once its server runs (java.util.Properties, the colon escaped). */
    private static void writeLock(Path database, int port) throws IOException {
        Files.writeString(lockFile(database), "#FileLock\nid=1a2b\nmethod=FILE\nserver=127.0.0.1\\:" + port + "\n");
    }

    /** An owner file as the serving process writes it, for a process of this machine's boot and namespace. */
    private static void writeOwner(Path database, String key, long pid, long started) throws IOException {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("key", key);
        p.setProperty("pid", Long.toString(pid));
        p.setProperty("started", Long.toString(started));
        p.setProperty(
                "boot",
                Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip());
        p.setProperty(
                "pidNamespace",
                Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString());
        try (var out = Files.newOutputStream(database.resolveSibling("sharding.owner"))) {
            p.store(out, null);
        }
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
