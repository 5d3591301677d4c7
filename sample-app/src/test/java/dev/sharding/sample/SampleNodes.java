package dev.sharding.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Sample nodes in the test's own JVM, each on a free HTTP port, in one cluster of their own on JGroups' shared
 * loopback with an in-memory store. {@link #close()} stops those still running.
 */
final class SampleNodes implements AutoCloseable {

    private final String clusterName = "sample-nodes-" + UUID.randomUUID();

    private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

    /**
     * Starts a node.
     *
     * @param name the node name
     * @param moreArgs further command-line arguments, which win over the defaults here
     * @return its application context
     */
    ConfigurableApplicationContext start(String name, String... moreArgs) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--sharding.cluster-name=" + clusterName,
                "--sharding.node-name=" + name,
                "--sharding.jgroups.config=dev/sharding/in-jvm.xml",
                "--sharding.retry-interval=300ms",
                "--sharding.store.type=memory"));
        args.addAll(List.of(moreArgs));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(args.toArray(String[]::new));
        nodes.add(context);
        return context;
    }

    /**
     * The URL of a path on a node.
     *
     * @param node the node
     * @param path the path, from the root of the server
     * @return the URL
     */
    static String url(ConfigurableApplicationContext node, String path) {
        int port = ((WebServerApplicationContext) node).getWebServer().getPort();
        return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() {
        nodes.forEach(ConfigurableApplicationContext::close);
    }
}
