/**
 * The bank-account sample: accounts are sharded entities spread over the cluster, reached over HTTP.
 */
@NullMarked
package dev.sharding.sample;

import org.jspecify.annotations.NullMarked;
