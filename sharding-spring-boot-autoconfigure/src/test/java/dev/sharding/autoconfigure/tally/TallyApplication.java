package dev.sharding.autoconfigure.tally;

import dev.sharding.EntityType;
import dev.sharding.Projection;
import dev.sharding.spi.EventUpcaster;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * An application whose entity is event-sourced, with an upcaster for its old events and one for no event of it, and a
 * projection of its events.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(exclude = DataSourceAutoConfiguration.class) // the store's embedded H2 file, shared
public class TallyApplication {

    /** A projection of the tallies' events, in two slices: the endpoint shows where each runs and how far it is. */
    @Bean
    EntityType<?> tallyView() {
        return Projection.of("tally-view", "tally", 2, events -> {});
    }

    @Bean
    EventUpcaster markedV1() {
        return new Tally.MarkedV1();
    }

    /** An upcaster of another application's events: not given to this type. */
    @Bean
    EventUpcaster someoneElses() {
        return new EventUpcaster() {
            @Override
            public String eventName() {
                return "shipped";
            }

            @Override
            public int fromVersion() {
                return 1;
            }

            @Override
            public Map<String, Object> upcast(Map<String, Object> fields) {
                return fields;
            }
        };
    }
}
