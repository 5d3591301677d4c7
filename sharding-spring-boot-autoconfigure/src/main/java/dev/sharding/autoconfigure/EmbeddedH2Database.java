package dev.sharding.autoconfigure;

/**
 * The embedded H2 file database of an application with no DataSource, as a bean of its own: it owns the connection
 * pool the store runs over and closes it when the context closes, after the store. Not a {@code DataSource} bean
 * itself, so that no other part of the application takes the store's database for its own.
 *
 * @param pool the connection pool of the database file
 */
record EmbeddedH2Database(EmbeddedH2Pool pool) implements AutoCloseable {

    /** Closes the pool; the database file stays. */
    @Override
    public void close() {
        this.pool.close();
    }
}
