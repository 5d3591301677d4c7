package dev.sharding.autoconfigure.scanned;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/**
 * Makes this package an auto-configuration package, as a {@code @SpringBootApplication} class does for its own.
 */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage
public class ScannedConfiguration {}
