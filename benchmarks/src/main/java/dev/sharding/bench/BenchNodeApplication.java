package dev.sharding.bench;

import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.JChannelCustomizer;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import org.jgroups.protocols.BasicTCP;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ResolvableType;

/**
 * One cluster node of a benchmark run: a Spring Boot application without a web server whose only entity is
 * {@link Counter}. It reads the launcher's commands on standard input (see {@link NodeIo}) and runs the measuring
 * side of the workloads ({@link Workloads}) through the injected {@code ShardRegion<Counter>}.
 *
 * <p>Properties the launcher passes: the {@code sharding.*} ones (cluster name, JGroups port and initial hosts,
 * proxy-only), {@code bench.name} (A, B or C, for the log), {@code bench.join-on-command} (wait for {@code JOIN}
 * before joining the cluster) and, for diagnostic variants only, {@code bench.jgroups.tcp-nodelay}.
 */
@SpringBootApplication
public class BenchNodeApplication {

    /**
     * Holds the join back until the launcher says so.
     *
     * @param io the launcher's commands
     * @return the gate
     */
    @Bean
    @ConditionalOnBooleanProperty("bench.join-on-command")
    JoinGate joinGate(NodeIo io) {
        return new JoinGate(io);
    }

    /**
     * A diagnostic variant, off by default: Nagle's algorithm off on the JGroups TCP connections (the default stack
     * has {@code tcp_nodelay="false"}). Set with {@code --node-arg=--bench.jgroups.tcp-nodelay=true}.
     *
     * @return the customizer
     */
    @Bean
    @ConditionalOnBooleanProperty("bench.jgroups.tcp-nodelay")
    JChannelCustomizer tcpNoDelay() {
        return channel -> {
            if (channel.getProtocolStack().getTransport() instanceof BasicTCP tcp) {
                tcp.tcpNodelay(true);
            }
        };
    }

    /**
     * Starts the node and serves the launcher's commands until told to exit.
     *
     * @param args Spring Boot arguments
     * @throws InterruptedException if interrupted while waiting for a command
     */
    static void run(String[] args) throws InterruptedException {
        NodeIo io = NodeIo.fromStandardInput();
        SpringApplication app = new SpringApplication(BenchNodeApplication.class);
        app.addInitializers(context -> context.getBeanFactory().registerSingleton("benchNodeIo", io));
        ConfigurableApplicationContext context;
        try {
            context = app.run(args);
        } catch (RuntimeException e) {
            NodeIo.emit("ERROR", "node failed to start: " + e);
            throw e;
        }
        ShardingNode node = context.getBean(ShardingNode.class);
        ShardRegion<Counter> counters = context.<ShardRegion<Counter>>getBeanProvider(
                ResolvableType.forClassWithGenerics(ShardRegion.class, Counter.class)).getObject();
        String name = context.getEnvironment().getProperty("bench.name", node.nodeName());
        Workloads workloads = new Workloads(node, counters, name);
        NodeIo.emit("READY", name + " " + node.nodeName() + " " + ProcessHandle.current().pid());
        while (true) {
            String line = io.take();
            if (line.equals("EXIT")) {
                // Results are in and every run starts a new cluster: a graceful leave would only cost time. Flight
                // recordings (--jfr) are written first, as halting skips the JVM's own dump at exit.
                writeFlightRecordings();
                Runtime.getRuntime().halt(0);
            }
            try {
                workloads.command(line.split("\\s+"));
            } catch (Exception | OutOfMemoryError e) {
                e.printStackTrace();
                NodeIo.emit("ERROR", line + ": " + e);
            }
        }
    }

    private static void writeFlightRecordings() {
        if (!FlightRecorder.isInitialized()) {
            return;
        }
        for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (r.getState() == RecordingState.RUNNING && r.getDestination() != null) {
                r.stop();
            }
        }
    }
}
