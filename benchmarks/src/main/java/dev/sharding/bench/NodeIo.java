package dev.sharding.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A node's line protocol with the launcher: commands arrive on standard input, one a line; events and results leave
 * on standard output as lines starting with {@link #PREFIX}, among the node's log lines. When standard input ends
 * (the launcher is gone) the node halts, so that no node outlives its launcher.
 */
public final class NodeIo {

    /** The start of every protocol line a node prints. */
    public static final String PREFIX = "@@bench ";

    /** What {@link #take()} returns once standard input has ended. */
    public static final String END = "EOF";

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private NodeIo() {}

    /**
     * Starts reading standard input on a daemon thread.
     *
     * @return the reader
     */
    public static NodeIo fromStandardInput() {
        NodeIo io = new NodeIo();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            if (!line.isBlank()) {
                                io.lines.add(line.trim());
                            }
                        }
                    } catch (IOException e) {
                        // the launcher is gone: same as the end of input
                    }
                    io.lines.add(END);
                },
                "bench-stdin");
        reader.setDaemon(true);
        reader.start();
        return io;
    }

    /**
     * The next command; halts the JVM when the input has ended.
     *
     * @return the command line
     * @throws InterruptedException if interrupted while waiting
     */
    public String take() throws InterruptedException {
        String line = lines.take();
        if (END.equals(line)) {
            Runtime.getRuntime().halt(0);
        }
        return line;
    }

    /**
     * Prints one protocol line.
     *
     * @param kind the event, such as {@code READY} or {@code RESULT}
     * @param rest what follows it, may be empty
     */
    public static void emit(String kind, String rest) {
        String line = PREFIX + kind + (rest.isEmpty() ? "" : " " + rest.replace('\n', ' '));
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
