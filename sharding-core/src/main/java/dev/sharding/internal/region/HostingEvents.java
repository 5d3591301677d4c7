package dev.sharding.internal.region;

/** What a region tells the node it runs on when its hosting changes: a role of {@link RegionHost}. */
public interface HostingEvents {

    /** A region's hosting changed. Control thread. */
    void regionChanged();

    /** A region stopped a shard on its own (fenced by the store): the coordinator hears what this node hosts now. */
    void stopServingShard();

    /** Asks for a passivation sweep at the next tick (a region went over its limit of live entities). */
    void requestSweep();
}
