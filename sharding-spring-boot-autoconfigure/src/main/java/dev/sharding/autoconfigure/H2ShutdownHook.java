package dev.sharding.autoconfigure;

import java.lang.reflect.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes H2's own JVM shutdown hook away, so that the embedded database closes when the store closes, after the node
 * has left its cluster, and not at the same time as Spring's shutdown hook starts the graceful leave (the node that
 * serves the file then failed its last epoch writes with "Database is already closed"). H2 refuses the setting that
 * would do this, DB_CLOSE_ON_EXIT=FALSE, together with AUTO_SERVER=TRUE, which the nodes need to share the file.
 *
 * <p>The hook is one per JVM and closes every H2 database of the process; without it, each closes when its last
 * connection does (Spring closes the application's own pools when the context closes). If H2 changes its internals
 * the hook is left in place and only the log line at stop comes back.
 */
final class H2ShutdownHook {

    private static final Logger log = LoggerFactory.getLogger(H2ShutdownHook.class);

    private H2ShutdownHook() {}

    /**
     * Removes H2's shutdown hook, if H2 registered it.
     *
     * @return whether it was registered and is now removed
     */
    static boolean detach() {
        try {
            Class<?> closer =
                    Class.forName("org.h2.engine.OnExitDatabaseCloser", false, H2ShutdownHook.class.getClassLoader());
            Field instance = closer.getDeclaredField("INSTANCE");
            instance.setAccessible(true);
            return Runtime.getRuntime().removeShutdownHook((Thread) instance.get(null));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.debug("H2's shutdown hook stays: the embedded database may close before the node has left", e);
            return false;
        }
    }
}
