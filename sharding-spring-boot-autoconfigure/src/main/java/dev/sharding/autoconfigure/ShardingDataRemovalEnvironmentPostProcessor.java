package dev.sharding.autoconfigure;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts the application without a web server ({@code spring.main.web-application-type=none}) when it runs only to
 * remove the stored sharding data ({@code sharding.store.remove-sharding-data=true}, sharding not disabled), so that
 * the removal neither takes the port of a node nor serves requests. Runs after the configuration files are loaded.
 */
final class ShardingDataRemovalEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** The name of the property source it adds. */
    static final String PROPERTY_SOURCE = "shardingDataRemoval";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Binder binder = Binder.get(environment);
        boolean enabled = binder.bind("sharding.enabled", Boolean.class).orElse(true);
        boolean removal = binder.bind("sharding.store.remove-sharding-data", Boolean.class)
                .orElse(false);
        if (enabled && removal) {
            environment
                    .getPropertySources()
                    .addFirst(
                            new MapPropertySource(PROPERTY_SOURCE, Map.of("spring.main.web-application-type", "none")));
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
