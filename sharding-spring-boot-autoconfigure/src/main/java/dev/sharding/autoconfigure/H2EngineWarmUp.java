package dev.sharding.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads H2's database engine in a node that uses another node's server, so that the file's takeover, when that node
 * dies, does not begin with loading and initialising it.
 *
 * <p>A node that connects to another node's server loads only H2's client. The one that takes the file over after a
 * crash then loads the engine (the store, its file and lock, the parser, the tables) while it opens the file, at the
 * moment every node waits for the store and the machine is busiest: on two cores shared by 12 nodes that took 0.8 to
 * 2.5 s, and nothing could be read or written meanwhile. Measured alone, a JVM that had opened a database of its own
 * first opened a crashed copy of the sample's file in 107 to 112 ms instead of 306. So the first connection of a node
 * to another's server starts, once per JVM, a thread that opens a throwaway file database in a temporary folder, runs
 * a write and a read, closes it and deletes the folder. The throwaway database is opened without H2's shutdown hook
 * ({@code DB_CLOSE_ON_EXIT=FALSE}), which would close the shared file at the JVM's exit out of the store's order (see
 * {@link H2ShutdownHook}), and without a server: it listens on no port.
 */
final class H2EngineWarmUp {

    private static final Logger log = LoggerFactory.getLogger(H2EngineWarmUp.class);

    private static final AtomicBoolean started = new AtomicBoolean();

    private H2EngineWarmUp() {}

    /**
     * Starts the warm-up on a daemon thread of its own, the first time in this JVM.
     *
     * @param driver H2's driver
     * @param credentials the user and password to create the throwaway database with
     */
    static void startOnce(java.sql.Driver driver, Properties credentials) {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Thread t = new Thread(() -> run(driver, credentials, tmp), "sharding-h2-warm-up");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Opens, uses and closes a throwaway file database, then deletes it; a failure is logged and changes nothing.
     *
     * @param driver H2's driver
     * @param credentials the user and password to create it with
     * @param parent where its temporary folder goes
     * @return whether the database was opened and used
     */
    static boolean run(java.sql.Driver driver, Properties credentials, Path parent) {
        long start = System.nanoTime();
        Path dir = null;
        try {
            dir = Files.createTempDirectory(parent, "sharding-h2-warm-up");
            String url = "jdbc:h2:file:" + dir.resolve("warm-up").toAbsolutePath() + ";DB_CLOSE_ON_EXIT=FALSE";
            try (Connection c = connect(driver, url, credentials);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE warm_up (id VARCHAR(64) PRIMARY KEY, n BIGINT)");
                s.execute("MERGE INTO warm_up KEY (id) VALUES ('a', 1)");
                s.executeQuery("SELECT n FROM warm_up WHERE id = 'a'").close();
            }
            log.debug(
                    "Loaded H2's engine for a takeover of the embedded file in {} ms",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            return true;
        } catch (IOException | SQLException | RuntimeException e) {
            log.debug("Could not load H2's engine ahead of a takeover of the embedded file: {}", e.toString());
            return false;
        } finally {
            if (dir != null) {
                deleteQuietly(dir);
            }
        }
    }

    private static Connection connect(java.sql.Driver driver, String url, Properties credentials) throws SQLException {
        Connection c = driver.connect(url, credentials);
        if (c == null) {
            throw new SQLException("The driver does not accept " + url);
        }
        return c;
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    log.debug("Could not delete {}: {}", p, e.toString());
                }
            });
        } catch (IOException e) {
            log.debug("Could not delete {}: {}", dir, e.toString());
        }
    }
}
