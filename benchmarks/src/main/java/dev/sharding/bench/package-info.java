/**
 * The workloads of {@code shared/bench/WORKLOAD.md} against the sharding starter: the
 * {@link dev.sharding.bench.Counter} entity, the node application each JVM runs, and the launcher that starts the
 * JVMs, drives them and prints one JSON line per workload.
 */
@NullMarked
package dev.sharding.bench;

import org.jspecify.annotations.NullMarked;
