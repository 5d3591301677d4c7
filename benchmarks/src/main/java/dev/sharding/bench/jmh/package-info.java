/**
 * JMH microbenchmarks of the per-message costs inside one node: encoding and decoding an envelope, the region's
 * routing step for a shard whose home is known, and the hand-off into a local entity's mailbox. They drive the
 * Spring-free runtime ({@link dev.sharding.internal.node.NodeRuntime}) over {@link dev.sharding.bench.jmh.FakeTransport},
 * which stands in for the network and the other node. Built into {@code benchmarks/target/benchmarks-jmh.jar}.
 */
@NullMarked
package dev.sharding.bench.jmh;

import org.jspecify.annotations.NullMarked;
