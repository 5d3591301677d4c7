package dev.sharding.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.JChannelCustomizer;
import dev.sharding.sample.Account;
import dev.sharding.sample.AccountHistoryConfiguration;
import dev.sharding.scale.Tally;
import dev.sharding.spi.ShardingStore;
import javax.sql.DataSource;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import org.jgroups.JChannel;
import org.jgroups.protocols.BasicTCP;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * One cluster node of a benchmark run: a Spring Boot application without a web server whose entity is
 * {@link Counter} (and, for D1 and D2, {@link DurableAccount}, for D3 the sample app's {@link Account}). It reads the launcher's commands on standard
 * input (see {@link NodeIo}) and runs the measuring side of the workloads ({@link Workloads}) through the injected
 * {@code ShardRegion<Counter>} (D1-D3: {@link DepositWorkload} through the account type's {@code ShardRegion}).
 *
 * <p>Properties the launcher passes: the {@code sharding.*} ones (cluster name, JGroups port and initial hosts,
 * proxy-only), {@code bench.name} (A, B or C, for the log), {@code bench.join-on-command} (wait for {@code JOIN}
 * before joining the cluster), {@code bench.accounts} ({@code durable} for D1 and D2, {@code event-sourced} for D3: run the account type too), {@code sharding.enabled=false}
 * (D0: no cluster at all; the node serves {@link PlainDeposits} on the DataSource), {@code spring.datasource.url},
 * {@code .username} and {@code .password} (D1 on PostgreSQL), {@code bench.scale} (W8: run {@link Tally} and the
 * commands of {@link ScaleProbe}) and, for diagnostic variants only,
 * {@code bench.jgroups.nagle}. W9's commands are {@link DensityWorkload}'s.
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
     * D1 and D2 only: the durable account ({@link DurableAccount}, the sample's account as it was before it became
     * event-sourced), registered as an entity type bean. The other workloads run without it.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "bench.accounts", havingValue = "durable")
    static class DurableAccounts {

        @Bean
        EntityType<DurableAccount> durableAccount() {
            return DurableAccount.type();
        }
    }

    /**
     * D3 only: the sample app's event-sourced {@link Account}, the very entity class its HTTP API uses, with its
     * history projection, as the sample runs them.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "bench.accounts", havingValue = "event-sourced")
    @Import({Account.class, AccountHistoryConfiguration.class})
    static class EventSourcedAccounts {}

    /**
     * W8 only: the durable {@link Tally} entity, and the node's channel kept (with the transport's message counts
     * on) so that W8 can read its traffic at idle.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("bench.scale")
    @Import(Tally.class)
    static class Scale {

        @Bean
        ChannelHolder benchChannelHolder() {
            return new ChannelHolder();
        }

        @Bean
        JChannelCustomizer benchChannelCapture(ChannelHolder holder) {
            return channel -> {
                channel.getProtocolStack().getTransport().enableStats(true);
                holder.channel = channel;
            };
        }
    }

    /** The node's channel, once built (W8 only). */
    static final class ChannelHolder {
        volatile @Nullable JChannel channel;
    }

    /**
     * D1 on PostgreSQL only: the application's {@code DataSource}, which the starter then keeps its store in, made
     * from {@code spring.datasource.url}, {@code .username} and {@code .password} as Spring Boot's own DataSource
     * auto-configuration would (a HikariCP pool, its default 10 connections). Spring Boot's JDBC auto-configuration
     * is deliberately not on the class path: with H2 there (the starter's embedded database) it makes an in-memory
     * embedded DataSource when no URL is set, and the nodes of W1-W7 and of D1 on H2 would then each keep their
     * store in a database of their own instead of the shared embedded file.
     *
     * @param environment the properties
     * @return the pool
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("spring.datasource.url")
    HikariDataSource dataSource(Environment environment) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("bench-datasource");
        config.setJdbcUrl(environment.getRequiredProperty("spring.datasource.url"));
        config.setUsername(environment.getProperty("spring.datasource.username"));
        config.setPassword(environment.getProperty("spring.datasource.password"));
        return new HikariDataSource(config);
    }

    /**
     * A diagnostic variant, off by default: Nagle's algorithm back on the JGroups TCP connections (the default stack
     * has {@code tcp_nodelay="true"}). Set with {@code --node-arg=--bench.jgroups.nagle=true}.
     *
     * @return the customizer
     */
    @Bean
    @ConditionalOnBooleanProperty("bench.jgroups.nagle")
    JChannelCustomizer nagle() {
        return channel -> {
            if (channel.getProtocolStack().getTransport() instanceof BasicTCP tcp) {
                tcp.tcpNodelay(false);
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
        ShardingNode node = context.getBeanProvider(ShardingNode.class).getIfAvailable();
        if (node == null) {
            // D0: no sharding (sharding.enabled=false), plain JDBC deposits on the application's pool
            PlainDeposits plain = new PlainDeposits(
                    context.getBean(DataSource.class), context.getEnvironment().getProperty("bench.name", "plain"));
            NodeIo.emit("READY", "plain " + ProcessHandle.current().pid());
            serve(io, words -> {
                if (!plain.command(words)) {
                    NodeIo.emit("ERROR", String.join(" ", words) + ": not a D0 command");
                }
            });
            return;
        }
        ShardRegion<Counter> counters = context.<ShardRegion<Counter>>getBeanProvider(
                        ResolvableType.forClassWithGenerics(ShardRegion.class, Counter.class))
                .getObject();
        String name = context.getEnvironment().getProperty("bench.name", node.nodeName());
        Workloads workloads = new Workloads(node, counters, name);
        String accountTypes = context.getEnvironment().getProperty("bench.accounts");
        boolean eventSourced = "event-sourced".equals(accountTypes);
        ShardRegion<?> accounts = accountTypes == null
                ? null
                : eventSourced ? node.region(Account.class) : node.region(DurableAccount.class);
        DepositWorkload deposits = accounts == null
                ? null
                : new DepositWorkload(node, accounts, context.getBean(ShardingStore.class), eventSourced);
        ChannelHolder holder = context.getBeanProvider(ChannelHolder.class).getIfAvailable();
        ScaleProbe scale = holder == null
                ? null
                : new ScaleProbe(
                        node,
                        context.<ShardRegion<Tally>>getBeanProvider(
                                        ResolvableType.forClassWithGenerics(ShardRegion.class, Tally.class))
                                .getObject(),
                        holder.channel);
        DensityWorkload density = new DensityWorkload(node, counters);
        NodeIo.emit(
                "READY",
                name + " " + node.nodeName() + " " + ProcessHandle.current().pid());
        serve(io, words -> {
            if (words[0].equals("LEAVE")) {
                // W8's and W9's graceful leave: the node hands its shards off and leaves the cluster as the context
                // stops; LEFT says how long that took
                long closing = System.nanoTime();
                context.close();
                NodeIo.emit("LEFT", Double.toString(Workloads.round3(Workloads.seconds(System.nanoTime() - closing))));
                Runtime.getRuntime().halt(0);
            }
            if ((deposits == null || !deposits.command(words))
                    && (scale == null || !scale.command(words))
                    && !density.command(words)) {
                workloads.command(words);
            }
        });
    }

    /** One command of the launcher, split into words. */
    private interface Command {
        void run(String[] words) throws Exception;
    }

    /** Serves the launcher's commands until EXIT; a failing command is reported and the node goes on. */
    private static void serve(NodeIo io, Command command) throws InterruptedException {
        while (true) {
            String line = io.take();
            if (line.equals("EXIT")) {
                // Results are in and every run starts a new cluster: a graceful leave would only cost time. Flight
                // recordings (--jfr) are written first, as halting skips the JVM's own dump at exit.
                writeFlightRecordings();
                Runtime.getRuntime().halt(0);
            }
            try {
                command.run(line.split("\\s+"));
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
