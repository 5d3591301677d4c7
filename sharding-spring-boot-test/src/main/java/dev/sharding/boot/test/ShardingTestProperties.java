package dev.sharding.boot.test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The properties that make a node a test node, as {@link AutoConfigureShardingTest} and {@link ShardingTestCluster}
 * set them.
 */
public final class ShardingTestProperties {

    /** The class path resource of the JGroups stack that reaches only the nodes of the same JVM. */
    public static final String IN_JVM_STACK = "dev/sharding/in-jvm.xml";

    /**
     * Whether messages and replies delivered within a node go through the codec and back, and written states are read
     * back (false unless set;
     * {@link AutoConfigureShardingTest} sets it).
     */
    public static final String SERIALIZE_LOCAL_MESSAGES = "sharding.test.serialize-local-messages";

    private ShardingTestProperties() {}

    /**
     * A cluster name no other test of this JVM uses.
     *
     * @param prefix what the name starts with, to tell clusters apart in logs
     * @return the name
     */
    public static String uniqueClusterName(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    /**
     * The properties of a test node.
     *
     * @param clusterName the cluster name
     * @param memoryStore whether the store keeps entity state in memory, instead of the application's store
     * @param serializeLocalMessages whether local deliveries go through the codec and back
     * @return the properties, in a stable order
     */
    public static Map<String, Object> of(String clusterName, boolean memoryStore, boolean serializeLocalMessages) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("sharding.jgroups.config", IN_JVM_STACK);
        properties.put("sharding.cluster-name", clusterName);
        if (memoryStore) {
            properties.put("sharding.store.type", "memory");
        }
        properties.put(SERIALIZE_LOCAL_MESSAGES, String.valueOf(serializeLocalMessages));
        return properties;
    }
}
