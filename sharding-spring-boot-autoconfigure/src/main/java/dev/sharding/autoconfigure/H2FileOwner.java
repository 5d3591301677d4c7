package dev.sharding.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process that serves the embedded H2 file, written beside it ({@code <name>.owner}) by that process once it has
 * opened the file: the key of H2's lock file it opened it under, its process id and start time, the machine's boot and
 * the process id namespace it ran in.
 *
 * <p>A process that finds the lock file naming a server that does not answer may read it: when the owner file names the
 * same lock, was written on this boot and in this process id namespace (so the process id means the same process here),
 * and no process with that id and start time runs, the server was killed and its lock file is left over. Anything else
 * (another machine sharing the folder, another container, a system without {@code /proc}, an unreadable file) says
 * nothing, and the takeover waits as before.
 */
final class H2FileOwner {

    private static final Logger log = LoggerFactory.getLogger(H2FileOwner.class);

    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private static final Path PID_NAMESPACE = Path.of("/proc/self/ns/pid");

    private H2FileOwner() {}

    /** Names this process the owner of the file locked under {@code key}; a failure only loses the shortcut. */
    static void write(Path ownerFile, String key) {
        String boot = boot();
        String namespace = pidNamespace();
        ProcessHandle self = ProcessHandle.current();
        Optional<java.time.Instant> started = self.info().startInstant();
        if (boot == null || namespace == null || started.isEmpty()) {
            return;
        }
        Properties p = new Properties();
        p.setProperty("key", key);
        p.setProperty("pid", Long.toString(self.pid()));
        p.setProperty("started", Long.toString(started.get().toEpochMilli()));
        p.setProperty("boot", boot);
        p.setProperty("pidNamespace", namespace);
        Path temporary = ownerFile.resolveSibling(ownerFile.getFileName() + "." + self.pid() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temporary)) {
                p.store(out, "The process that serves the embedded H2 file");
            }
            Files.move(temporary, ownerFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            log.debug("Could not write {}: {}", ownerFile, e.toString());
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException ignored) {
                // nothing more to do: the shortcut is lost, not the file
            }
        }
    }

    /**
     * Whether the process that opened the file under lock key {@code key} is known to be gone.
     *
     * @param ownerFile the owner file
     * @param key the key of the lock file found now
     * @return true only when the owner file names that lock and this machine's boot and process id namespace, and no
     *     process with its id and start time runs
     */
    static boolean gone(Path ownerFile, @Nullable String key) {
        if (key == null) {
            return false;
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(ownerFile)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
        String boot = boot();
        String namespace = pidNamespace();
        if (!key.equals(p.getProperty("key"))
                || boot == null
                || !boot.equals(p.getProperty("boot"))
                || namespace == null
                || !namespace.equals(p.getProperty("pidNamespace"))) {
            return false;
        }
        long pid;
        long started;
        try {
            pid = Long.parseLong(p.getProperty("pid", ""));
            started = Long.parseLong(p.getProperty("started", ""));
        } catch (NumberFormatException e) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || exited(pid)) {
            return true;
        }
        // the id taken by another process since: the owner is gone too; an unknown start time says nothing
        Optional<java.time.Instant> start = process.get().info().startInstant();
        return start.isPresent() && start.get().toEpochMilli() != started
                || !process.get().isAlive();
    }

    /**
     * Whether the process has exited and waits only to be reaped by its parent (a zombie: killed, its sockets and
     * file locks released, but still listed until its parent waits for it, which a supervisor that is slow to reap
     * leaves for a while).
     */
    static boolean exited(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')');
            char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
            return state == 'Z' || state == 'X';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static @Nullable String boot() {
        try {
            String id = Files.readString(BOOT_ID).strip();
            return id.isEmpty() ? null : id;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static @Nullable String pidNamespace() {
        try {
            return Files.readSymbolicLink(PID_NAMESPACE).toString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
