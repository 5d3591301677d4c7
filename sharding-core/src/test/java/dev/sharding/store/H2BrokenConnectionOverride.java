package dev.sharding.store;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.util.Set;

/**
 * Tells HikariCP to discard H2 connections that H2 reports broken or closed. Hikari only recognises SQLSTATE class 08
 * as a dead connection; H2 uses its own codes, so without this a pooled H2 connection whose server process died is
 * handed out again and again (it cannot reconnect itself inside a transaction, and the store writes in
 * transactions). Used by {@link H2DurabilityChild} through {@code exceptionOverrideClassName}, as the starter's
 * embedded database pool must.
 */
public final class H2BrokenConnectionOverride implements SQLExceptionOverride {

    /** CONNECTION_BROKEN_1, DATABASE_CALLED_AT_SHUTDOWN, DATABASE_IS_CLOSED, OBJECT_CLOSED. */
    private static final Set<Integer> BROKEN = Set.of(90067, 90121, 90098, 90007);

    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException e) {
        return BROKEN.contains(e.getErrorCode())
                ? SQLExceptionOverride.Override.MUST_EVICT
                : SQLExceptionOverride.Override.CONTINUE_EVICT;
    }
}
