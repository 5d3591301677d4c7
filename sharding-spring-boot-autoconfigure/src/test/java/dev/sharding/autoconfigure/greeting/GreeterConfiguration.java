package dev.sharding.autoconfigure.greeting;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Registers the {@link Greeter} entity class as a bean definition and the bean it needs.
 */
@Configuration(proxyBeanMethods = false)
@Import(Greeter.class)
public class GreeterConfiguration {

    /**
     * The salutation.
     *
     * @return "Hello"
     */
    @Bean
    Salutation salutation() {
        return new Salutation("Hello");
    }
}
