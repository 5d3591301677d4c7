/**
 * The node: its assembly and lifecycle, membership and views, the control thread and its periodic tick, the
 * coordinator's driver, graceful leave, the serving gate and the status the public API reads. Internals; not an
 * API.
 */
@NullMarked
package dev.sharding.internal.node;

import org.jspecify.annotations.NullMarked;
