package dev.sharding;

import java.util.List;

/**
 * Handles the events of one slice of a projection, in offset order ({@link Projection#of}). Delivery is at least once:
 * the slice's offset is saved after the handler returns, so a worker that stops in between (a crash, a move) hands the
 * same events again to the worker that takes over. Make the handler idempotent (an entity's events carry their
 * sequence numbers), or use a {@link JdbcProjectionHandler} for exactly once.
 */
@FunctionalInterface
public interface ProjectionHandler {

    /**
     * Handles a batch of events.
     *
     * @param events the events, in offset order; never empty
     * @throws Exception when they could not be handled: they are handed again after a wait
     */
    void handle(List<ProjectedEvent> events) throws Exception;
}
