package dev.sharding.autoconfigure;

/**
 * The test mode of a node, bound from {@code sharding.test.*}: set by the test kit (sharding-spring-boot-test's
 * {@code @AutoConfigureShardingTest} and {@code ShardingTestCluster}), never needed in production.
 */
public class TestModeProperties {

    /**
     * Whether the node encodes and decodes every message and reply it delivers locally, and replaces every entity
     * state it writes by what the codec reads back from it, so that a single-node test fails as a cluster would. Takes
     * effect only with the test kit on the class path; the test kit sets it to true.
     */
    private boolean serializeLocalMessages = false;

    public boolean isSerializeLocalMessages() {
        return this.serializeLocalMessages;
    }

    public void setSerializeLocalMessages(boolean serializeLocalMessages) {
        this.serializeLocalMessages = serializeLocalMessages;
    }
}
