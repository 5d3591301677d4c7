package dev.sharding.autoconfigure;

/**
 * Properties of one entity type, under {@code sharding.entities.<type>}.
 */
public class EntityTypeProperties {

    /**
     * Number of shards of this entity type, overriding the annotation and the node's default; 0 keeps them.
     */
    private int numberOfShards;

    /**
     * Whether this node only routes messages of this entity type and hosts none of its entities.
     */
    private boolean proxyOnly;

    /**
     * The number of shards.
     *
     * @return the number, or 0 for the annotation's or the node's default
     */
    public int getNumberOfShards() {
        return this.numberOfShards;
    }

    /**
     * Sets the number of shards.
     *
     * @param numberOfShards the number, or 0 for the default
     */
    public void setNumberOfShards(int numberOfShards) {
        this.numberOfShards = numberOfShards;
    }

    /**
     * Whether this node only routes.
     *
     * @return true for a proxy-only region
     */
    public boolean isProxyOnly() {
        return this.proxyOnly;
    }

    /**
     * Sets whether this node only routes.
     *
     * @param proxyOnly true for a proxy-only region
     */
    public void setProxyOnly(boolean proxyOnly) {
        this.proxyOnly = proxyOnly;
    }
}
