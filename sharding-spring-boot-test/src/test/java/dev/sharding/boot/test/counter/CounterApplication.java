package dev.sharding.boot.test.counter;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application under test: its entities are found in its package. */
@SpringBootApplication
public class CounterApplication {}
