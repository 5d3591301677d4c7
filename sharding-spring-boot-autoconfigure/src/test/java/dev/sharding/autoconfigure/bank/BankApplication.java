package dev.sharding.autoconfigure.bank;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A Spring Boot application as a user writes it: auto-configuration, its entities in its own package, and services
 * that use them. It has no DataSource: the test class path has Boot's JDBC auto-configuration (for the tests of the
 * store's DataSource conventions), which would give it an in-memory database that the store refuses.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@Import({AuditLog.class, Payments.class})
public class BankApplication {}
