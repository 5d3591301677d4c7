package dev.sharding.baseline;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * What a user would write without sharding: the sample's deposit and balance API as a Spring Boot MVC application
 * whose every request is one transaction on a shared database ({@code spring.datasource.url}), through
 * {@code JdbcClient}. Several copies on different ports serve the same accounts; the database keeps them consistent.
 */
@SpringBootApplication
public class BaselineApplication {

    /**
     * Starts an instance.
     *
     * @param args Spring Boot arguments: {@code --server.port}, {@code --spring.datasource.url} (and its user and
     *     password), {@code --baseline.node-name}
     */
    public static void main(String[] args) {
        SpringApplication.run(BaselineApplication.class, args);
    }
}
