package dev.sharding.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.EntityTypeMetrics.DropReason;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The recorder on its own: each call lands in the meter with the right tags, and recording allocates nothing (the
 * meters of a type are resolved once, when the node builds its region).
 */
class MicrometerShardingMetricsTests {

    private final MeterRegistry registry = new SimpleMeterRegistry();

    private final MicrometerShardingMetrics metrics = new MicrometerShardingMetrics(registry);

    @Test
    void eachCallLandsInItsMeter() {
        EntityTypeMetrics type = metrics.entityType("order");
        type.askCompleted(AskOutcome.TIMEOUT, true, 5_000_000);
        type.askCompleted(AskOutcome.SUCCESS, false, 1_000);
        type.told();
        type.dropped(DropReason.PARTITIONED);
        type.passivated();
        type.handedOff(2_000_000);
        type.stateWritten(3_000, false);
        metrics.rebalanceRound();
        metrics.storeBatch(7);

        assertThat(registry.get("sharding.asks")
                        .tags("type", "order", "outcome", "timeout", "remote", "true")
                        .timer()
                        .totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(5.0);
        assertThat(registry.get("sharding.asks")
                        .tags("type", "order", "outcome", "success", "remote", "false")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("sharding.asks")
                        .tags("type", "order", "outcome", "success", "remote", "true")
                        .timer()
                        .count())
                .isZero();
        assertThat(registry.get("sharding.tells").tag("type", "order").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("sharding.dropped")
                        .tags("type", "order", "reason", "partitioned")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("sharding.passivations").counter().count()).isEqualTo(1);
        assertThat(registry.get("sharding.handoffs").timer().totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(2.0);
        assertThat(registry.get("sharding.store.write")
                        .tags("type", "order", "outcome", "failure")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("sharding.rebalance.rounds").counter().count()).isEqualTo(1);
        assertThat(registry.get("sharding.store.batch.size").summary().totalAmount())
                .isEqualTo(7);
    }

    @Test
    void recordingAllocatesNothing() {
        EntityTypeMetrics type = metrics.entityType("order");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        record(type, 200_000); // warm up: class loading and the first compilations allocate
        long before = threads.getThreadAllocatedBytes(thread);
        record(type, 200_000);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(allocated)
                .as("bytes allocated by 1,200,000 recordings (the counter itself may allocate a few)")
                .isLessThan(4_096);
        assertThat(registry.get("sharding.tells").counter().count()).isEqualTo(400_000);
    }

    private static void record(EntityTypeMetrics type, int n) {
        for (int i = 0; i < n; i++) {
            type.askCompleted(AskOutcome.SUCCESS, (i & 1) == 0, 10_000 + i);
            type.told();
            type.dropped(DropReason.BUFFER_FULL);
            type.passivated();
            type.stateWritten(1_000, true);
            type.handedOff(1_000);
        }
    }
}
