package dev.sharding;

/**
 * What a sharded daemon process runs: one worker per index, started on the node where the index lives and stopped
 * when it moves ({@link ShardedDaemonProcess}).
 */
@FunctionalInterface
public interface DaemonProcess {

    /**
     * Starts the worker of one index on this node. It should return soon, leaving the work to threads of its own,
     * and keep working until the returned handle is closed.
     *
     * @param context which worker it is, and where
     * @return what stops it: closed when the index moves to another node, its node leaves, or the node stops
     * @throws Exception when it cannot start; it is tried again as an entity whose creation failed is
     */
    AutoCloseable start(DaemonContext context) throws Exception;

    /** Which worker of a daemon process is started, and where. */
    interface DaemonContext {

        /** {@return the process's name} */
        String name();

        /** {@return the worker's index, from 0 to {@link #count()} minus one} */
        int index();

        /** {@return how many workers the process has} */
        int count();

        /** {@return the name of the node it runs on} */
        String nodeName();
    }
}
