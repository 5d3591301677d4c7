package dev.sharding.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A node of the bank-account sample. Start several copies on one machine and they form one cluster: the first on
 * port 8080, the next with {@code --server.port=8081}, and so on.
 */
@SpringBootApplication
public class SampleApplication {

    /**
     * Starts a node.
     *
     * @param args Spring Boot arguments, such as {@code --server.port=8081}
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
