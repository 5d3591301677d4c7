package dev.sharding.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * The launcher's control of the sample app's processes (H1, W10): the arguments that put a node on the run's cluster,
 * the wait until it is up and sees its members, and reads of its actuator endpoints.
 */
final class SampleNodes {

    private static final HttpClient CONTROL =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private SampleNodes() {}

    /**
     * The arguments of one sample node of a run: its HTTP port, cluster, JGroups port and peers, and name.
     *
     * @param cluster the run's cluster name
     * @param name the node name
     * @param httpPort its HTTP port
     * @param jgroupsPort its JGroups port
     * @param jgroupsPorts the JGroups ports of every node of the run
     * @return the arguments
     */
    static List<String> args(String cluster, String name, int httpPort, int jgroupsPort, List<Integer> jgroupsPorts) {
        List<String> args = new ArrayList<>(List.of("--server.port=" + httpPort));
        args.addAll(Launcher.clusterArgs(cluster, jgroupsPort, jgroupsPorts));
        args.add("--sharding.node-name=" + name);
        args.add("--sharding.jgroups.bind-address=127.0.0.1");
        return args;
    }

    /**
     * Waits until the application answers UP on {@code /actuator/health} and, when {@code members > 0}, lists that
     * many members on {@code /actuator/sharding}.
     */
    static void awaitReady(NodeProcess p, int port, int members, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException(p.name() + " exited while starting; see its log");
            }
            try {
                JsonNode health = get(port, "/actuator/health");
                last = "health " + health.path("status").asString();
                if ("UP".equals(health.path("status").asString())) {
                    if (members == 0) {
                        return;
                    }
                    int seen = get(port, "/actuator/sharding").path("members").size();
                    last = seen + " members";
                    if (seen == members) {
                        return;
                    }
                }
            } catch (IOException | RuntimeException e) {
                last = e.toString();
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(p.name() + " not ready within " + timeout.toSeconds() + " s: " + last);
    }

    /** {@return the JSON body of a GET of {@code path} on the node at {@code port}} */
    static JsonNode get(int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = CONTROL.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return Workloads.JSON.readTree(r.body());
    }
}
