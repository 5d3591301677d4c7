package dev.sharding.boot.test.store;

/**
 * A failure a contract test can make a store's database suffer.
 */
public enum StoreFault {

    /** Connections cannot be opened, as when the database is down or the pool is closed. */
    UNREACHABLE,

    /**
     * Statements run but every commit fails before it reaches the database, as when the connection is lost at the last
     * moment: nothing is committed, and the store cannot know it.
     */
    COMMIT_FAILS,

    /**
     * Every commit reaches the database and is committed, then the connection is lost before the answer comes back:
     * the store cannot tell this from {@link #COMMIT_FAILS}.
     */
    COMMIT_LOST_AFTER_APPLYING,

    /**
     * Connections open, but break at their first statement, before anything is applied, as those to a database server
     * that restarted or moved (the embedded H2 file's server, when the node serving it stops): another connection
     * works again once the fault is healed.
     */
    CONNECTIONS_BREAK,

    /**
     * Connections open, but every statement and commit waits for an answer that does not come, as from a database
     * server that stopped (SIGSTOP, a long pause) without closing its sockets, until the connection is aborted
     * ({@link java.sql.Connection#abort}) or the fault is healed. At most 60 s, then the call fails.
     */
    HANGS
}
