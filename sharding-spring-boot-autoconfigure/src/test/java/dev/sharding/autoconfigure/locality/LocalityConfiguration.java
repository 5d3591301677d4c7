package dev.sharding.autoconfigure.locality;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Makes this package an auto-configuration package, and declares the shard id function as a bean with a dependency.
 */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class LocalityConfiguration {

    /**
     * What separates the customer from the order in an id.
     *
     * @return the separator
     */
    @Bean
    Separator separator() {
        return new Separator(':');
    }

    /**
     * The shard id function, a bean: the entity type takes this instance.
     *
     * @param separator its dependency
     * @return the function
     */
    @Bean
    CustomerShards customerShards(Separator separator) {
        return new CustomerShards(separator);
    }

    /**
     * A dependency of the function.
     *
     * @param value the separator character
     */
    public record Separator(char value) {}
}
