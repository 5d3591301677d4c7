package dev.sharding.bench;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One node JVM started by the launcher: its standard output is copied to a log file, and the protocol lines among it
 * ({@link NodeIo#PREFIX}) are queued for {@link #await(String, Duration)}; commands go to its standard input.
 * {@link #close()} stops it, forcibly if it does not exit at once.
 */
final class NodeProcess implements AutoCloseable {

    private static final String EOF = "\u0000EOF";

    private final String name;

    private final Process process;

    private final Path log;

    private final Writer commands;

    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    private final ArrayDeque<String> tail = new ArrayDeque<>();

    private volatile double lastCpuSeconds;

    private final List<LineWatch> watches = new CopyOnWriteArrayList<>();

    /** The first line after {@link #watch(String)} that contains a text, and when the launcher read it. */
    static final class LineWatch {

        private final String text;

        private volatile long nanos = -1;

        private volatile @Nullable String line;

        private LineWatch(String text) {
            this.text = text;
        }

        /** {@return System.nanoTime() when the line was read, or -1 while none was} */
        long nanos() {
            return nanos;
        }

        /** {@return the line, or null while none was read} */
        @Nullable
        String line() {
            return line;
        }
    }

    /** Whether the process reads the launcher's commands (a bench node), or is stopped with SIGTERM (another jar). */
    private final boolean readsCommands;

    NodeProcess(String name, List<String> command, Path log) throws IOException {
        this(name, command, log, true);
    }

    /** A process that reads no commands, such as an HTTP application: {@link #close()} stops it with SIGTERM. */
    static NodeProcess withoutCommands(String name, List<String> command, Path log) throws IOException {
        return new NodeProcess(name, command, log, false);
    }

    private NodeProcess(String name, List<String> command, Path log, boolean readsCommands) throws IOException {
        this.name = name;
        this.readsCommands = readsCommands;
        this.log = log;
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        this.process = pb.start();
        this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Files.writeString(log, String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::copyOutput, "bench-out-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    private void copyOutput() {
        try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer out =
                        Files.newBufferedWriter(log, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(line);
                out.write(System.lineSeparator());
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > 30) {
                        tail.removeFirst();
                    }
                }
                for (LineWatch w : watches) {
                    if (w.nanos < 0 && line.contains(w.text)) {
                        w.line = line;
                        w.nanos = System.nanoTime();
                        watches.remove(w);
                    }
                }
                if (line.startsWith(NodeIo.PREFIX)) {
                    out.flush();
                    events.add(line.substring(NodeIo.PREFIX.length()));
                } else if (!in.ready()) {
                    out.flush(); // nothing more to copy for now: the log is current for whoever reads it (W10)
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
        events.add(EOF);
    }

    /**
     * Looks out for the first line from now on that contains {@code text} (W8: the coordinator's log lines).
     *
     * @param text what the line contains
     * @return the watch, filled in when such a line is read
     */
    LineWatch watch(String text) {
        LineWatch w = new LineWatch(text);
        watches.add(w);
        return w;
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** {@return the process, to be killed together with others (W10)} */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** {@return the file its output is copied to} */
    Path log() {
        return log;
    }

    /** Sends one command line. */
    void send(String command) throws IOException {
        commands.write(command);
        commands.write('\n');
        commands.flush();
    }

    /**
     * Waits for the node's next protocol line starting with {@code kind}, skipping others.
     *
     * @return what follows the kind
     * @throws IllegalStateException on an {@code ERROR} line, when the node exits, or after the timeout
     */
    String await(String kind, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw failure("no " + kind + " within " + timeout);
            }
            if (line.equals(EOF)) {
                throw failure("exited while the launcher waited for " + kind);
            }
            if (line.startsWith("ERROR")) {
                throw failure(line);
            }
            if (line.equals(kind) || line.startsWith(kind + " ")) {
                return line.substring(kind.length()).trim();
            }
        }
    }

    private IllegalStateException failure(String what) {
        StringBuilder b = new StringBuilder("Node " + name + " (pid " + process.pid() + "): " + what + "; log " + log);
        synchronized (tail) {
            b.append(", last lines:");
            tail.forEach(l -> b.append(System.lineSeparator()).append("    ").append(l));
        }
        return new IllegalStateException(b.toString());
    }

    /** CPU seconds the node used, as last seen while it ran. */
    double cpuSeconds() {
        if (process.isAlive()) {
            lastCpuSeconds = MachineLoad.cpuSeconds(process.toHandle());
        }
        return lastCpuSeconds;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Stops the node: asks it to exit (a bench node by command, another process by SIGTERM), then kills it if it is
     * still there after a few seconds.
     */
    @Override
    public void close() {
        cpuSeconds();
        if (process.isAlive()) {
            if (readsCommands) {
                try {
                    send("EXIT");
                } catch (IOException e) {
                    // gone already, or stdin closed
                }
            } else {
                process.destroy();
            }
            try {
                process.waitFor(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        destroy();
    }

    /** Kills the node at once (also from a shutdown hook). */
    void destroy() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
