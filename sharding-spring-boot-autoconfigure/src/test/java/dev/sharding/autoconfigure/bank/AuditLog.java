package dev.sharding.autoconfigure.bank;

import jakarta.annotation.PreDestroy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A singleton that entities record their lifecycle in. It knows when it has been destroyed, so that entities can tell
 * whether they stopped before the beans they use.
 */
public class AuditLog {

    private final List<String> entries = new CopyOnWriteArrayList<>();

    private volatile boolean open = true;

    /**
     * Records an entry.
     *
     * @param entry the entry
     */
    public void record(String entry) {
        this.entries.add(entry);
    }

    /**
     * The entries so far.
     *
     * @return a copy
     */
    public List<String> entries() {
        return List.copyOf(this.entries);
    }

    /**
     * Whether this bean has not been destroyed yet.
     *
     * @return true until the context destroys it
     */
    public boolean isOpen() {
        return this.open;
    }

    /** Marks this bean destroyed. */
    @PreDestroy
    void close() {
        this.open = false;
    }
}
