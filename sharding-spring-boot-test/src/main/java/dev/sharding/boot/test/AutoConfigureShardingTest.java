package dev.sharding.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes the sharding node of a Spring test context a node of its own test cluster: JGroups runs on the in-JVM
 * loopback stack ({@value ShardingTestProperties#IN_JVM_STACK}: no socket, no port), under a cluster name made
 * unique for each context, and entity state is kept in memory unless {@link #store()} asks for the application's
 * store. Such a test never joins a cluster running on the machine, and test contexts of one JVM never join each
 * other, so tests may run in parallel.
 *
 * <p>Every message and reply delivered within the node also goes through the codec and back, as it would between
 * two nodes, and every entity state written is read back as the shard's next owner would read it
 * ({@link #serializeLocalMessages()}), so that a single-node test fails where a message would not cross the network
 * intact.
 *
 * <p>These settings rank above the application's configuration files and below the test's own properties
 * ({@code @SpringBootTest(properties = ...)}, {@code @TestPropertySource}), so a test can still change any of them.
 *
 * <pre>{@code
 * @SpringBootTest
 * @AutoConfigureShardingTest
 * class AccountTests {
 *     @Autowired ShardRegion<Account> accounts;
 *     ...
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureShardingTest {

    /**
     * Which store the node uses.
     *
     * @return {@link Store#MEMORY} unless changed
     */
    Store store() default Store.MEMORY;

    /**
     * Whether every message and reply delivered within the node goes through the codec and back, and every entity
     * state written is replaced by what the codec reads back from it.
     *
     * @return true unless changed
     */
    boolean serializeLocalMessages() default true;

    /** The store of a test node. */
    enum Store {

        /** Entity state in the JVM's memory: nothing is left behind between runs. */
        MEMORY,

        /**
         * The store the application configures (JDBC on its {@code DataSource}, or the embedded H2 file): for tests
         * of the application's database.
         */
        APPLICATION
    }
}
