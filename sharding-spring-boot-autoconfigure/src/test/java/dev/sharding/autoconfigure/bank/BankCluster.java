package dev.sharding.autoconfigure.bank;

import dev.sharding.Member;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A cluster of {@link BankApplication} contexts in one JVM, each a sharding node on JGroups' SHARED_LOOPBACK, with
 * a cluster name of its own. Nodes are configured with command-line arguments, as a user would run them.
 */
public final class BankCluster implements AutoCloseable {

    /** How long cluster formation may take on a loaded 2-core machine. */
    public static final Duration FORMATION = Duration.ofSeconds(30);

    /** How long a test waits for one reply. */
    public static final long REPLY_SECONDS = 10;

    private final String clusterName = "bank-" + UUID.randomUUID();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private final Class<?> application;

    /** A cluster of {@link BankApplication} nodes. */
    public BankCluster() {
        this(BankApplication.class);
    }

    /**
     * A cluster of nodes running another application class.
     *
     * @param application the {@code @SpringBootConfiguration} class
     */
    public BankCluster(Class<?> application) {
        this.application = application;
    }

    /**
     * Starts one more node and waits until the cluster has converged.
     *
     * @param nodeName the node name
     * @param moreArgs further command-line arguments; one naming a property of the defaults replaces it
     * @return the node's application context
     */
    public ConfigurableApplicationContext start(String nodeName, String... moreArgs) {
        ConfigurableApplicationContext context = launch(nodeName, moreArgs);
        awaitConverged();
        return context;
    }

    /**
     * Starts a node without waiting for the cluster to take it (one the coordinator refuses, say).
     *
     * @param nodeName the node name
     * @param moreArgs further arguments, replacing the defaults they name
     * @return its context
     */
    public ConfigurableApplicationContext launch(String nodeName, String... moreArgs) {
        List<String> args = new ArrayList<>(List.of(
                "--sharding.cluster-name=" + this.clusterName,
                "--sharding.node-name=" + nodeName,
                "--sharding.jgroups.config=shared-loopback.xml",
                "--sharding.retry-interval=300ms",
                "--sharding.store.type=memory",
                "--management.endpoints.web.exposure.include=health,sharding"));
        for (String more : moreArgs) {
            // an argument given again replaces the default (Spring would join the two values into a list)
            String key = more.contains("=") ? more.substring(0, more.indexOf('=') + 1) : more;
            args.removeIf(arg -> arg.startsWith(key));
            args.add(more);
        }
        ConfigurableApplicationContext context = new SpringApplicationBuilder(this.application)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(args.toArray(String[]::new));
        this.contexts.add(context);
        return context;
    }

    /**
     * Waits until every running node has the same view of exactly the running nodes and is registered, and the
     * oldest one's coordinator is ready.
     */
    public void awaitConverged() {
        Awaitility.await("view of " + names() + " installed and every node registered")
                .atMost(FORMATION)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    List<ShardingNode> running = running();
                    Set<Member> expected =
                            running.stream().map(ShardingNode::self).collect(Collectors.toSet());
                    for (ShardingNode node : running) {
                        if (!Set.copyOf(node.members()).equals(expected) || !node.isRegistered()) {
                            return false;
                        }
                    }
                    return running.stream()
                            .anyMatch(n -> n.self().equals(n.members().get(0)) && n.isCoordinatorReady());
                });
    }

    /**
     * The context of a running node.
     *
     * @param nodeName the node name
     * @return its context
     */
    public ConfigurableApplicationContext context(String nodeName) {
        return this.contexts.stream()
                .filter(ConfigurableApplicationContext::isActive)
                .filter(c -> c.getBean(ShardingNode.class).nodeName().equals(nodeName))
                .findFirst()
                .orElseThrow(() -> new AssertionError("No running node " + nodeName + " among " + names()));
    }

    /**
     * Finds an account id whose entity lives on the given node, asking from another: creates accounts with the
     * given prefix until one replies from there.
     *
     * @param via the context to ask from
     * @param prefix the prefix of the ids to try
     * @param host the name of the node that should host the entity
     * @return the id
     * @throws Exception if an ask fails
     */
    public static String accountHostedOn(ConfigurableApplicationContext via, String prefix, String host)
            throws Exception {
        Payments payments = via.getBean(Payments.class);
        for (int i = 0; i < 200; i++) {
            String id = prefix + i;
            Account.Balance balance = payments.accounts()
                    .ask(id, new Account.GetBalance(), Account.Balance.class)
                    .get(REPLY_SECONDS, TimeUnit.SECONDS);
            if (balance.node().equals(host)) {
                return id;
            }
        }
        throw new AssertionError("None of 200 accounts " + prefix + "* lives on " + host);
    }

    private List<ShardingNode> running() {
        return this.contexts.stream()
                .filter(ConfigurableApplicationContext::isActive)
                .map(c -> c.getBean(ShardingNode.class))
                .filter(ShardingNode::isRunning)
                .toList();
    }

    private List<String> names() {
        return running().stream().map(ShardingNode::nodeName).toList();
    }

    /** Closes every context still open. */
    @Override
    public void close() {
        for (ConfigurableApplicationContext context : this.contexts) {
            context.close();
        }
    }
}
