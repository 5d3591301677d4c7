package dev.sharding.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets one process at a time open the embedded H2 file when nobody serves it, so that the nodes sharing the file take
 * it over in about the time H2 needs to open it, and not in the four to eight seconds H2's own file lock takes from
 * all but the first of several processes that try at once.
 *
 * <p>With {@code AUTO_SERVER}, the process that opens the file serves it to the others, and names its server in the
 * file's lock file ({@code <name>.lock.db}: {@code server} and {@code id}); a process that finds a server there that
 * answers connects to it at once. When that process stops, the others find no server and each tries to open the file
 * itself: the first gets it, and every other one, finding the lock file new, waits until it is two seconds old,
 * writes its own claim, waits two seconds more, and only then sees the server and connects to it. In a rolling
 * restart under load this held every write of those nodes for longer than an ask may take.
 *
 * <p>Here a process that finds no live server first claims the takeover with a file of its own ({@code
 * <name>.takeover}, created atomically); only the claimant opens the file, and the others wait until the lock file
 * names a server that answers. A lock file without a server while nobody holds the claim is one a process killed
 * while opening the file left. A lock file that still names a server that does not answer is given
 * {@link #CLOSING_GRACE_NANOS} to go away (a server that stops removes it once the file is closed); after that it is
 * one a killed process left, and the claimant opens the file through H2's own recovery of such a lock; unless the
 * process that served it is known to be gone ({@link H2FileOwner}): then the claimant removes that lock file at once
 * and opens the file as if nobody had had it, sparing the grace and H2's own check (about four seconds). A claim
 * older than {@link #CLAIM_STALE_NANOS} is one its process did not finish (killed while opening), and is taken over.
 * Nothing here is needed for correctness: H2's lock protects the file, and whoever waits here longer than
 * {@code patience} goes on to H2 as before.
 */
final class H2FileTakeover {

    private static final Logger log = LoggerFactory.getLogger(H2FileTakeover.class);

    /** How often a waiting process looks at the files again. */
    static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** How long a lock file naming a server that does not answer may take to go away before it counts as left over. */
    static final long CLOSING_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** How old a claim may get before it counts as one a killed process left. */
    static final long CLAIM_STALE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** How long a connection attempt to a server named in the lock file may take. */
    private static final int CONNECT_TIMEOUT_MILLIS = 250;

    private final Path lockFile;

    private final Path claimFile;

    /** Which process serves the file: written by the process that opened it ({@link #serving()}). */
    private final Path ownerFile;

    private final long patienceNanos;

    /**
     * Orders the takeover of one H2 file database.
     *
     * @param database the database's path as in its URL, without H2's extensions ({@code data/sharding})
     * @param patienceNanos how long {@link #await} waits at most before it lets the caller go to H2 anyway
     */
    H2FileTakeover(Path database, long patienceNanos) {
        Path absolute = database.toAbsolutePath();
        this.lockFile = absolute.resolveSibling(absolute.getFileName() + ".lock.db");
        this.claimFile = absolute.resolveSibling(absolute.getFileName() + ".takeover");
        this.ownerFile = absolute.resolveSibling(absolute.getFileName() + ".owner");
        this.patienceNanos = patienceNanos;
    }

    /** What a process may do now. */
    enum Kind {
        /** A server answers: connect to it. */
        SERVED,
        /** This process holds the claim: open the file, then {@link #release()}. */
        CLAIMED,
        /** Waited {@code patience} without either: go to H2 as it is. */
        GAVE_UP
    }

    /**
     * What a process may do now, and where the server is when there is one.
     *
     * @param kind what it may do
     * @param server the server's {@code host:port} when {@link Kind#SERVED}
     * @param key the key under which the server serves the file (the lock file's {@code id}) when {@link Kind#SERVED}
     */
    record Turn(
            Kind kind, @Nullable String server, @Nullable String key) {

        static final Turn CLAIMED = new Turn(Kind.CLAIMED, null, null);

        static final Turn GAVE_UP = new Turn(Kind.GAVE_UP, null, null);
    }

    /**
     * Waits until the file is served by a server that answers, or until this process holds the claim to open it.
     *
     * @return the turn; after {@link Turn#CLAIMED}, the caller must call {@link #release()} once its attempt to open
     *     the file has ended, whether it succeeded or not
     */
    Turn await() {
        long start = System.nanoTime();
        long deadServerSince = 0;
        boolean waited = false;
        while (true) {
            long now = System.nanoTime();
            Lock lock = readLock();
            boolean mayClaim;
            String server = lock.server();
            if (server != null) {
                if (lock.key() != null && answers(server)) {
                    if (waited) {
                        log.info(
                                "The embedded H2 database is served by another node now ({}); waited {} ms for it",
                                server,
                                TimeUnit.NANOSECONDS.toMillis(now - start));
                    }
                    return new Turn(Kind.SERVED, server, lock.key());
                }
                if (deadServerSince == 0) {
                    deadServerSince = now;
                }
                // a server that stops removes its lock file soon after it stops answering; one that was killed never.
                // When its process is known to be gone, its lock file is removed and the file claimed at once
                boolean ownerGone = H2FileOwner.gone(ownerFile, lock.key());
                mayClaim = ownerGone || now - deadServerSince >= CLOSING_GRACE_NANOS;
                if (ownerGone && claim()) {
                    removeLeftOverLock(lock.key());
                    return Turn.CLAIMED;
                }
            } else {
                deadServerSince = 0;
                // no lock file: nobody has the file. A lock file without a server: a process is opening the file
                // (then it holds the claim, and claiming fails until it is done) or was killed while opening it
                mayClaim = true;
            }
            if (mayClaim && claim()) {
                return Turn.CLAIMED;
            }
            if (now - start >= patienceNanos) {
                log.warn(
                        "No node has served the embedded H2 file {} for {} ms; opening it without waiting any longer",
                        lockFile,
                        TimeUnit.NANOSECONDS.toMillis(now - start));
                return Turn.GAVE_UP;
            }
            waited = true;
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * This process has opened the file and serves it: names it as the file's owner, so that when it is killed the
     * others can tell that its lock file is left over without waiting ({@link H2FileOwner}).
     */
    void serving() {
        Lock lock = readLock();
        String key = lock.key();
        if (key != null) {
            H2FileOwner.write(ownerFile, key);
        }
    }

    /**
     * Removes the lock file a killed owner left, so that H2 opens the file without its check of a left-over lock (two
     * seconds and more), unless it changed meanwhile. Only the claimant calls this.
     */
    private void removeLeftOverLock(@Nullable String key) {
        Lock now = readLock();
        if (key != null && key.equals(now.key())) {
            try {
                Files.deleteIfExists(lockFile);
                log.info(
                        "The process that served the embedded H2 file {} is gone; removed the lock file it left",
                        lockFile);
            } catch (IOException e) {
                log.debug("Could not remove the left-over lock file {}: {}", lockFile, e.toString());
            }
        }
    }

    /** Gives the claim up: the claimant's attempt to open the file has ended. */
    void release() {
        try {
            Files.deleteIfExists(claimFile);
        } catch (IOException e) {
            log.debug("Could not remove the takeover claim {}: {}", claimFile, e.toString());
        }
    }

    /** Takes the claim when nobody holds it, or when its holder left it behind. */
    private boolean claim() {
        try {
            // as H2 does before it creates its lock file: the folder of a database not created yet
            Files.createDirectories(claimFile.getParent());
            Files.createFile(claimFile);
            return true;
        } catch (FileAlreadyExistsException e) {
            try {
                long age = System.currentTimeMillis()
                        - Files.getLastModifiedTime(claimFile).toMillis();
                if (TimeUnit.MILLISECONDS.toNanos(age) > CLAIM_STALE_NANOS) {
                    log.info("Taking over the embedded H2 file's takeover claim {}, left {} ms ago", claimFile, age);
                    Files.deleteIfExists(claimFile);
                }
            } catch (NoSuchFileException gone) {
                // released meanwhile: the next look decides
            } catch (IOException other) {
                log.debug("Could not look at the takeover claim {}: {}", claimFile, other.toString());
            }
            return false;
        } catch (IOException e) {
            // a folder this process cannot write to: H2 cannot open the file here either, and says why
            log.debug("Could not claim the takeover of the embedded H2 file: {}", e.toString());
            return false;
        }
    }

    /** The lock file as it is now; one being written counts as one without a server. */
    private Lock readLock() {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(lockFile)) {
            properties.load(in);
        } catch (NoSuchFileException e) {
            return new Lock(false, null, null);
        } catch (IOException | IllegalArgumentException e) {
            return new Lock(true, null, null);
        }
        return new Lock(true, nonBlank(properties.getProperty("server")), nonBlank(properties.getProperty("id")));
    }

    private static @Nullable String nonBlank(@Nullable String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** Whether a server at {@code host:port} accepts a connection. */
    private static boolean answers(String server) {
        int colon = server.lastIndexOf(':');
        if (colon <= 0) {
            return false;
        }
        try (Socket socket = new Socket()) {
            int port = Integer.parseInt(server.substring(colon + 1));
            socket.connect(new InetSocketAddress(server.substring(0, colon), port), CONNECT_TIMEOUT_MILLIS);
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    /** The lock file: whether it exists, the server it names and the key the server serves the file under. */
    private record Lock(
            boolean exists,
            @Nullable String server,
            @Nullable String key) {}
}
