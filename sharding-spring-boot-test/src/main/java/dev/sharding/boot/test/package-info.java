/**
 * Testing applications that use cluster sharding: {@link dev.sharding.boot.test.AutoConfigureShardingTest} keeps a
 * test's node to a cluster of its own inside the JVM, {@link dev.sharding.boot.test.ShardingTestCluster} starts
 * several nodes of the application in one JVM and crashes, stops and partitions them, and
 * {@link dev.sharding.boot.test.OwnerCheck} finds entities alive on two serving nodes at once.
 */
@NullMarked
package dev.sharding.boot.test;

import org.jspecify.annotations.NullMarked;
