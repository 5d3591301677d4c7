package dev.sharding.autoconfigure.vault;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * An application whose entity keeps durable state.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class VaultApplication {}
