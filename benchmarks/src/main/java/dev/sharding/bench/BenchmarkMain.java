package dev.sharding.bench;

import java.util.Arrays;

/**
 * The jar's entry point. Without {@code --role=node} it is the launcher ({@link Launcher}): it starts the node JVMs
 * of each chosen workload, drives them and prints one JSON line per workload. With {@code --role=node} it is one
 * cluster node ({@link BenchNodeApplication}), started by the launcher.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar                      # W1-W7
 * java -jar benchmarks/target/benchmarks.jar --workloads=W1,W3    # chosen ones
 * java -jar benchmarks/target/benchmarks.jar --workloads=D1 --store=h2,postgresql   # the deposit workload
 * </pre>
 */
public final class BenchmarkMain {

    /** The argument that makes a JVM a cluster node rather than the launcher. */
    public static final String NODE_ROLE = "--role=node";

    /** Logback's configuration of the launcher: warnings only, to standard error (standard output is the results). */
    private static final String LAUNCHER_LOGGING = "logback.configurationFile";

    private BenchmarkMain() {}

    /**
     * Runs the launcher or a node.
     *
     * @param args launcher options (see {@link Launcher}) or, with {@link #NODE_ROLE}, Spring Boot arguments
     * @throws Exception if a node cannot start
     */
    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains(NODE_ROLE)) {
            BenchNodeApplication.run(args);
        } else {
            if (System.getProperty(LAUNCHER_LOGGING) == null) {
                System.setProperty(LAUNCHER_LOGGING, "bench-launcher-logback.xml");
            }
            System.exit(Launcher.run(args));
        }
    }
}
