package dev.sharding.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.MessageRejectedException;
import dev.sharding.ShardRegion;
import dev.sharding.boot.test.counter.Counter;
import dev.sharding.boot.test.counter.CounterApplication;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The test mode that sends local messages through the codec: on, a message that would not cross the network intact
 * fails on one node as it would between two; off (the default of a node outside tests), the entity gets the caller's
 * own object and the same message goes through.
 */
class SerializeLocalMessagesTests {

    private static final Counter.Note NOTE = new Counter.Note("a note", new Counter.Colour("red"));

    @Test
    void onAMessageThatDoesNotDecodeFailsOnOneNodeAndOthersComeBackThroughTheCodec() throws Exception {
        try (ShardingTestCluster cluster =
                ShardingTestCluster.of(CounterApplication.class).start(1)) {
            ShardRegion<Counter> counters = cluster.node(1).region(Counter.class);
            assertThat(counters.ask("c", new Counter.Add(4), Counter.Total.class)
                            .get(30, TimeUnit.SECONDS))
                    .isEqualTo(new Counter.Total(4));
            assertThatThrownBy(
                            () -> counters.ask("c", NOTE, Counter.Total.class).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(MessageRejectedException.class)
                    .hasMessageContaining("Note");
            assertThat(counters.ask("c", new Counter.Add(1), Counter.Total.class)
                            .get(30, TimeUnit.SECONDS))
                    .as("the entity goes on")
                    .isEqualTo(new Counter.Total(5));
        }
    }

    @Test
    void offTheEntityGetsTheCallersObject() throws Exception {
        try (ShardingTestCluster cluster = ShardingTestCluster.of(CounterApplication.class)
                .serializeLocalMessages(false)
                .start(1)) {
            ShardRegion<Counter> counters = cluster.node(1).region(Counter.class);
            assertThat(counters.ask("c", new Counter.Add(2), Counter.Total.class)
                            .get(30, TimeUnit.SECONDS))
                    .isEqualTo(new Counter.Total(2));
            assertThat(counters.ask("c", NOTE, Counter.Total.class).get(30, TimeUnit.SECONDS))
                    .isEqualTo(new Counter.Total(2));
        }
    }
}
