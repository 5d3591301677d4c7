package dev.sharding.test;

import dev.sharding.ShardingSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

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
                    .withNetwork("127.0.0.1", port, 0, String.join(",", hosts)));
        }
        return settings;
    }
}
