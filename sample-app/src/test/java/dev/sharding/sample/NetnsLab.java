package dev.sharding.sample;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A small network made of Linux network namespaces, for process tests that cut links: one namespace per host, each
 * with an {@code eth0} on one bridge (in a namespace of its own), and one veth from the test's own namespace into the
 * bridge so that the test reaches every host. Links are cut with iptables inside the hosts' namespaces.
 *
 * <p>Everything it makes is named with {@link #PREFIX}: namespaces {@code shpt-br}, {@code shpt-<host>}, and the
 * host-side veth {@code shpt-host}, with addresses in {@link #SUBNET}.0/24. One run at a time on a machine holds a lock
 * file; holding it, whatever carries the prefix is left over from a crashed run and is removed first. Closing (or the
 * shutdown hook, when the test JVM dies) kills the processes started in the namespaces and deletes the namespaces and
 * the veth; nothing is left in the host's namespace.
 *
 * <p>Needs root with the right to make namespaces, {@code ip} (iproute2) and {@code iptables}; {@link #unavailable()}
 * says why not when it cannot run.
 */
final class NetnsLab implements AutoCloseable {

    /** The prefix of every namespace and link this class makes, and what a later run removes. */
    static final String PREFIX = "shpt-";

    /** The first three bytes of the addresses: a /24 of 10/8 that nothing on a test machine is likely to use. */
    static final String SUBNET = "10.247.63";

    private static final String BRIDGE_NS = PREFIX + "br";

    private static final String HOST_VETH = PREFIX + "host";

    private static final Path LOCK = Paths.get(System.getProperty("java.io.tmpdir"), "sharding-partition-it.lock");

    private static final @Nullable String IP = command("ip");

    private static final @Nullable String IPTABLES = command("iptables");

    private static final @Nullable String TC = command("tc");

    private final List<String> namespaces = new CopyOnWriteArrayList<>();

    private final List<Process> processes = new CopyOnWriteArrayList<>();

    private final Thread cleanupOnExit = new Thread(this::cleanup, "netns-lab-cleanup");

    private final FileChannel lockFile;

    private final FileLock lock;

    private boolean hostVeth;

    /** The output and exit status of a command. */
    record Result(int status, String output) {}

    /**
     * Why this machine cannot run the lab, or empty when it can: not root, {@code ip} or {@code iptables} missing, or
     * no right to make a network namespace.
     *
     * @return the reason, for a skipped test
     */
    static Optional<String> unavailable() {
        String uid = run(List.of("id", "-u")).output().trim();
        if (!"0".equals(uid)) {
            return Optional.of("needs root to make network namespaces (running as uid " + uid + ")");
        }
        if (IP == null) {
            return Optional.of("needs `ip` (Debian package iproute2; .ci/run installs it)");
        }
        if (IPTABLES == null) {
            return Optional.of("needs `iptables` (Debian package iptables; .ci/run installs it)");
        }
        // root without the capabilities (a container, say): ip netns add fails, and nothing here could work
        String probe = PREFIX + "probe-" + ProcessHandle.current().pid();
        Result add = run(List.of(ip(), "netns", "add", probe));
        run(List.of(ip(), "netns", "del", probe));
        if (add.status() != 0) {
            return Optional.of("needs to make network namespaces, which this root cannot: "
                    + add.output().trim());
        }
        return Optional.empty();
    }

    /**
     * Takes the machine-wide lock (waiting for another run to finish), removes what a crashed run left and makes the
     * bridge with the test's own veth, {@link #SUBNET}.1.
     */
    NetnsLab() throws IOException, InterruptedException {
        lockFile = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l = lockFile.tryLock();
        if (l == null) {
            System.out.println("Another run holds " + LOCK + "; waiting for it");
            l = lockFile.lock();
        }
        lock = l;
        removeLeftovers();
        for (String line :
                run(List.of(ip(), "-4", "-o", "addr", "show")).output().split("\n")) {
            if (line.contains(" " + SUBNET + ".")) {
                close();
                throw new IllegalStateException("The host already has an address in " + SUBNET + ".0/24: " + line);
            }
        }
        Runtime.getRuntime().addShutdownHook(cleanupOnExit);
        try {
            addNamespace(BRIDGE_NS);
            must(ip(), "-n", BRIDGE_NS, "link", "add", "br0", "type", "bridge");
            must(ip(), "-n", BRIDGE_NS, "link", "set", "br0", "up");
            hostVeth = true;
            must(ip(), "link", "add", HOST_VETH, "type", "veth", "peer", "name", "host", "netns", BRIDGE_NS);
            must(ip(), "-n", BRIDGE_NS, "link", "set", "host", "master", "br0", "up");
            must(ip(), "addr", "add", SUBNET + ".1/24", "dev", HOST_VETH);
            must(ip(), "link", "set", HOST_VETH, "up");
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Makes a host: a namespace {@code shpt-<name>} whose {@code eth0} on the bridge has the given address.
     *
     * @param name a short name (the namespace's and the bridge port's)
     * @param lastByte the last byte of its address in {@link #SUBNET}
     * @return the namespace's name
     */
    String addHost(String name, int lastByte) throws IOException, InterruptedException {
        String ns = PREFIX + name;
        addNamespace(ns);
        String port = "v-" + name;
        must(ip(), "-n", BRIDGE_NS, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns);
        must(ip(), "-n", BRIDGE_NS, "link", "set", port, "master", "br0", "up");
        must(ip(), "-n", ns, "addr", "add", address(lastByte) + "/24", "dev", "eth0");
        must(ip(), "-n", ns, "link", "set", "eth0", "up");
        Result r = run(List.of(ip(), "netns", "exec", ns, iptables(), "-w", "-S"));
        if (r.status() != 0) {
            throw new IllegalStateException("iptables does not work in namespace " + ns + ": " + r.output());
        }
        return ns;
    }

    static String address(int lastByte) {
        return SUBNET + "." + lastByte;
    }

    /**
     * Starts a command inside a namespace ({@code ip netns exec} execs it, so the process is the command itself and
     * signals reach it), its output appended to a log file.
     */
    Process start(String ns, List<String> command, Path log, Path directory) throws IOException {
        List<String> full = new ArrayList<>(List.of(ip(), "netns", "exec", ns));
        full.addAll(command);
        Files.writeString(
                log,
                String.join(" ", full) + System.lineSeparator(),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Process p = new ProcessBuilder(full)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        processes.add(p);
        return p;
    }

    /** Drops every packet between a namespace and the given addresses, both ways; other traffic still flows. */
    void cut(String ns, List<String> from) throws IOException, InterruptedException {
        for (String address : from) {
            must(ip(), "netns", "exec", ns, iptables(), "-w", "-A", "INPUT", "-s", address, "-j", "DROP");
            must(ip(), "netns", "exec", ns, iptables(), "-w", "-A", "OUTPUT", "-d", address, "-j", "DROP");
        }
    }

    /** Removes every rule of a namespace's cuts. */
    void heal(String ns) throws IOException, InterruptedException {
        must(ip(), "netns", "exec", ns, iptables(), "-w", "-F");
    }

    /**
     * Why links cannot be slowed here, or empty when they can: {@code tc} missing, or no {@code tbf} queueing
     * discipline in the kernel (tried on the lab's own veth, and removed at once).
     */
    Optional<String> shapingUnavailable() {
        if (TC == null) {
            return Optional.of("needs `tc` (Debian package iproute2)");
        }
        Result r = run(List.of(
                tc(), "qdisc", "add", "dev", HOST_VETH, "root", "tbf", "rate", "1mbit", "burst", "16kb", "latency",
                "50ms"));
        run(List.of(tc(), "qdisc", "del", "dev", HOST_VETH, "root"));
        return r.status() == 0
                ? Optional.empty()
                : Optional.of("needs the tbf queueing discipline: " + r.output().trim());
    }

    /**
     * Slows a host's link both ways with a token bucket ({@code tbf}): on its {@code eth0} (what it sends) and on its
     * port of the bridge (what it receives). Packets beyond the bucket and a short queue are dropped, as on a congested
     * link.
     *
     * @param ns the host's namespace, as {@link #addHost} returned it
     * @param rate the rate, in tc's units ({@code 8kbit})
     */
    void slow(String ns, String rate) throws IOException, InterruptedException {
        List<String> tbf = List.of("root", "tbf", "rate", rate, "burst", "1600", "latency", "400ms");
        List<String> out = new ArrayList<>(List.of(ip(), "netns", "exec", ns, tc(), "qdisc", "add", "dev", "eth0"));
        out.addAll(tbf);
        must(out.toArray(String[]::new));
        List<String> in =
                new ArrayList<>(List.of(ip(), "netns", "exec", BRIDGE_NS, tc(), "qdisc", "add", "dev", bridgePort(ns)));
        in.addAll(tbf);
        must(in.toArray(String[]::new));
    }

    /** Removes what {@link #slow} added; a link that is not slowed is left as it is. */
    void unslow(String ns) {
        run(List.of(ip(), "netns", "exec", ns, tc(), "qdisc", "del", "dev", "eth0", "root"));
        run(List.of(ip(), "netns", "exec", BRIDGE_NS, tc(), "qdisc", "del", "dev", bridgePort(ns), "root"));
    }

    /** The queueing disciplines of a host's two ends, with their counters ({@code tc -s qdisc}). */
    String shaping(String ns) {
        return run(List.of(ip(), "netns", "exec", ns, tc(), "-s", "qdisc", "show", "dev", "eth0"))
                        .output()
                        .trim()
                + " | bridge port: "
                + run(List.of(ip(), "netns", "exec", BRIDGE_NS, tc(), "-s", "qdisc", "show", "dev", bridgePort(ns)))
                        .output()
                        .trim();
    }

    private static String bridgePort(String ns) {
        return "v-" + ns.substring(PREFIX.length());
    }

    /** Sends a signal (STOP, CONT, ...) to a process. */
    static void signal(Process p, String signal) throws IOException, InterruptedException {
        must("kill", "-" + signal, Long.toString(p.pid()));
    }

    /**
     * Stops the processes started here: SIGCONT first (a stopped JVM does not act on SIGTERM), SIGTERM, and SIGKILL
     * for those still running after the grace period.
     */
    void stopAll(long graceSeconds) {
        for (Process p : processes) {
            if (p.isAlive()) {
                run(List.of("kill", "-CONT", Long.toString(p.pid())));
                p.destroy();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds);
        for (Process p : processes) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        processes.removeIf(p -> !p.isAlive());
    }

    @Override
    public void close() throws IOException {
        stopAll(30);
        cleanup();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanupOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        lock.release();
        lockFile.close();
    }

    private void cleanup() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (hostVeth) {
            run(List.of(ip(), "link", "del", HOST_VETH));
            hostVeth = false;
        }
        for (String ns : namespaces) {
            deleteNamespace(ns);
        }
        namespaces.clear();
    }

    private void addNamespace(String ns) throws IOException, InterruptedException {
        must(ip(), "netns", "add", ns);
        namespaces.add(ns);
        must(ip(), "-n", ns, "link", "set", "lo", "up");
    }

    /** Kills what still runs in the namespaces of a crashed run (only ours carry the prefix) and deletes them. */
    private static void removeLeftovers() {
        for (String line : run(List.of(ip(), "netns", "list")).output().split("\n")) {
            String ns = line.trim().split("\\s+")[0];
            if (ns.startsWith(PREFIX)) {
                System.out.println("Removing namespace " + ns + ", left over from an earlier run");
                deleteNamespace(ns);
            }
        }
        if (run(List.of(ip(), "link", "show", HOST_VETH)).status() == 0) {
            run(List.of(ip(), "link", "del", HOST_VETH));
        }
    }

    private static void deleteNamespace(String ns) {
        for (String pid : run(List.of(ip(), "netns", "pids", ns)).output().split("\\s+")) {
            if (pid.matches("\\d+")) {
                run(List.of("kill", "-CONT", pid));
                run(List.of("kill", "-KILL", pid));
            }
        }
        run(List.of(ip(), "netns", "del", ns));
    }

    private static String ip() {
        return java.util.Objects.requireNonNull(IP, "ip");
    }

    private static String tc() {
        return java.util.Objects.requireNonNull(TC, "tc");
    }

    private static String iptables() {
        return java.util.Objects.requireNonNull(IPTABLES, "iptables");
    }

    private static void must(String... command) throws IOException, InterruptedException {
        Result r = run(List.of(command));
        if (r.status() != 0) {
            throw new IOException(String.join(" ", command) + " failed with status " + r.status() + ": " + r.output());
        }
    }

    static Result run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, command + " timed out");
            }
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, command + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, command + ": interrupted");
        }
    }

    /** The command's path in PATH or the sbin folders (root's PATH may lack them), or null. */
    private static @Nullable String command(String name) {
        List<String> dirs =
                new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (String dir : dirs) {
            if (!dir.isEmpty() && Files.isExecutable(Paths.get(dir, name))) {
                return Paths.get(dir, name).toString();
            }
        }
        return null;
    }
}
