/**
 * Split-brain decisions and leases: which side of a partition may run ({@link
 * dev.sharding.internal.lease.PartitionDecider}), this node's lease to serve, the coordinator's grants, and its lease
 * in the store; {@link dev.sharding.internal.lease.LeaseKeeper} is their face to the node. Internals; not an API.
 */
@NullMarked
package dev.sharding.internal.lease;

import org.jspecify.annotations.NullMarked;
