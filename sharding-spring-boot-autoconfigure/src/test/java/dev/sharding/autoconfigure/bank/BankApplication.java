package dev.sharding.autoconfigure.bank;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A Spring Boot application as a user writes it: auto-configuration, its entities in its own package, and services
 * that use them.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({AuditLog.class, Payments.class})
public class BankApplication {
}
