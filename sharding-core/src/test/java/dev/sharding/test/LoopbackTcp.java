package dev.sharding.test;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.awaitility.Awaitility;

/** Settings for nodes on the default TCP stack on loopback, each on a free port, all listed as initial hosts. */
public final class LoopbackTcp {

    private LoopbackTcp() {}

    /**
     * The settings of {@code count} nodes of one new cluster.
     *
     * @param clusterPrefix the start of the cluster's name (a random suffix makes it unique)
     * @param count how many nodes
     * @return one settings per node, in port order
     * @throws IOException if no free port is found
     */
    public static List<ShardingSettings> nodes(String clusterPrefix, int count) throws IOException {
        int[] ports = new int[count];
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                ports[i] = s.getLocalPort();
            }
            hosts.add("127.0.0.1[" + ports[i] + "]");
        }
        String cluster = clusterPrefix + "-" + UUID.randomUUID();
        List<ShardingSettings> settings = new ArrayList<>();
        for (int port : ports) {
            settings.add(ShardingSettings.defaults()
                    .withClusterName(cluster)
                    .withJgroups(
                            JgroupsSettings.defaults().withNetwork("127.0.0.1", port, 0, String.join(",", hosts))));
        }
        return settings;
    }

    /**
     * Builds and starts a node for each settings, adding each to {@code into} once started (for the test to close),
     * and waits until all of them see one view of them all and are registered.
     *
     * @param settings the nodes' settings ({@link #nodes})
     * @param builder the builder of a node with those settings
     * @param into where the started nodes go
     */
    public static void start(
            List<ShardingSettings> settings,
            Function<ShardingSettings, ShardingNode.Builder> builder,
            List<ShardingNode> into) {
        List<ShardingNode> started = new ArrayList<>();
        for (ShardingSettings s : settings) {
            ShardingNode node = builder.apply(s).build();
            node.start();
            into.add(node);
            started.add(node);
        }
        Awaitility.await(settings.size() + "-member view on every node")
                .atMost(Duration.ofSeconds(30))
                .until(() -> started.stream().allMatch(n -> n.members().size() == settings.size() && n.isRegistered()));
    }
}
