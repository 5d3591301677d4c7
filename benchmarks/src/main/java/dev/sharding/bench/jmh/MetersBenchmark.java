package dev.sharding.bench.jmh;

import dev.sharding.autoconfigure.metrics.MicrometerShardingMetrics;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the node's meters cost per message, on the thread that records: {@code ask} is what completing an ask adds
 * (one timer sample, chosen by outcome and remoteness), {@code tell} what a tell adds (one counter increment), both
 * into the meters {@link MicrometerShardingMetrics} registered up front, in a Prometheus registry (what an application
 * scraped by Prometheus has) or Micrometer's simple one (the actuator alone). {@code none} is the recorder a node
 * without meters calls. Two threads record at once, as the entity threads of a node do.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MetersBenchmark {

    /** The registry the meters live in. */
    @Param({"prometheus", "simple", "none"})
    public String registry;

    private EntityTypeMetrics type;

    private long nanos = 123_456;

    /** The recorder of one entity type. */
    @Setup
    public void setUp() {
        MeterRegistry r = switch (registry) {
            case "prometheus" -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            case "simple" -> new SimpleMeterRegistry();
            default -> null;
        };
        type = r == null ? EntityTypeMetrics.NONE : new MicrometerShardingMetrics(r).entityType("counter");
    }

    /** One ask's outcome recorded. */
    @Benchmark
    public void ask() {
        type.askCompleted(AskOutcome.SUCCESS, true, nanos++);
    }

    /** One tell counted. */
    @Benchmark
    public void tell() {
        type.told();
    }
}
