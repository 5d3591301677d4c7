package dev.sharding.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.ShardingMetrics.ProjectionMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** A projection slice's meters: events counted, lag in seconds, zero when caught up, gone when the worker leaves. */
class ProjectionMetersTests {

    @Test
    void aSliceCountsItsEventsAndShowsItsLagUntilItsWorkerLeaves() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ProjectionMetrics slice = new MicrometerShardingMetrics(registry).projection("history", 2);

        slice.handled(40, 2_500);
        slice.handled(10, 1_500);

        assertThat(registry.get("sharding.projection.events")
                        .tag("projection", "history")
                        .tag("slice", "2")
                        .counter()
                        .count())
                .isEqualTo(50);
        assertThat(registry.get("sharding.projection.lag")
                        .tag("slice", "2")
                        .gauge()
                        .value())
                .isEqualTo(1.5);
        slice.caughtUp();
        assertThat(registry.get("sharding.projection.lag").gauge().value()).isZero();
        slice.stopped();
        assertThat(registry.find("sharding.projection.lag").gauge()).isNull();
    }
}
