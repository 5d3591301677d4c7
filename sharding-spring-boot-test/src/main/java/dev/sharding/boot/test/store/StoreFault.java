package dev.sharding.boot.test.store;

/**
 * A failure a contract test can make a store's database suffer.
 */
public enum StoreFault {

    /** Connections cannot be opened, as when the database is down or the pool is closed. */
    UNREACHABLE,

    /** Statements run but every commit fails, as when the connection is lost at the last moment. */
    COMMIT_FAILS
}
