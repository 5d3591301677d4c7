package dev.sharding.internal.entity;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A shard's live cells by entity id: a hash table whose chains run through the cells themselves
 * ({@link EntityCell#chainNext}), so that a cell costs its table one array slot rather than a map node of its own (32
 * bytes, with a {@code ConcurrentHashMap}: an idle entity took 197 bytes, of which 42 were its map's).
 *
 * <p>Lookups take no lock: they read the bucket and follow the chain with acquire reads. Additions, removals and
 * growth take the table's lock. A lookup that runs beside a change may miss a cell that is there (growth relinks the
 * chains; a removal unlinks a cell that a lookup may be standing on, whose link still leads on): so a miss is never
 * the last word, and {@link #getOrAdd} looks again under the lock before it adds, which is what keeps one cell per id.
 * A lookup never loops: at any moment the links lead from cells moved by the growth under way to cells moved before
 * them, and from cells not moved yet along their old chains, so every walk ends.
 *
 * <p>{@link #values} is weakly consistent in a weaker sense than {@code ConcurrentHashMap}'s: during a growth it may
 * miss or repeat a cell (fine for the passivation sweep and the counts it serves); {@link #snapshot} takes every cell
 * under the lock, for walks that must see each cell once.
 */
public final class CellTable {

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(EntityCell[].class);

    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(EntityCell.class, "chainNext", EntityCell.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int INITIAL_CAPACITY = 16;

    /** The buckets; replaced, twice as large, when the cells outnumber them. */
    private volatile EntityCell[] table = new EntityCell[INITIAL_CAPACITY];

    /** How many cells the table holds; written under the lock. */
    private volatile int size;

    private final Object lock = new Object();

    /** An entity id's hash, spread over the low bits that pick a bucket. */
    static int hash(String entityId) {
        int h = entityId.hashCode();
        return h ^ (h >>> 16);
    }

    /**
     * The cell of an entity, or null; may miss a cell being added, or one whose chain is relinked as the table grows
     * (see the class): a caller that must know uses {@link #getOrAdd}.
     *
     * @param entityId the id
     * @return the cell found, or null
     */
    public @Nullable EntityCell get(String entityId) {
        int h = hash(entityId);
        EntityCell[] t = table;
        EntityCell c = (EntityCell) SLOTS.getAcquire(t, h & (t.length - 1));
        while (c != null) {
            if (c.hash == h && c.entityId().equals(entityId)) {
                return c;
            }
            c = (EntityCell) NEXT.getAcquire(c);
        }
        return null;
    }

    /**
     * The cell of an entity, added if the table has none.
     *
     * @param entityId the id
     * @param create makes the cell, under the table's lock (it must be cheap and take no lock)
     * @return the cell of the id: there is never more than one
     */
    public EntityCell getOrAdd(String entityId, Function<String, EntityCell> create) {
        EntityCell found = get(entityId);
        if (found != null) {
            return found;
        }
        synchronized (lock) {
            EntityCell[] t = table;
            int h = hash(entityId);
            int i = h & (t.length - 1);
            for (EntityCell c = t[i]; c != null; c = c.chainNext) {
                if (c.hash == h && c.entityId().equals(entityId)) {
                    return c;
                }
            }
            EntityCell cell = create.apply(entityId);
            if (cell.hash != h || !cell.entityId().equals(entityId)) {
                throw new IllegalArgumentException("Made a cell of " + cell.entityId() + " for " + entityId);
            }
            cell.chainNext = t[i];
            SLOTS.setRelease(t, i, cell); // published with its link
            int n = size + 1;
            size = n;
            if (n > t.length) {
                grow(t);
            }
            return cell;
        }
    }

    /**
     * Removes a cell, if the table holds it (and not another cell of its id).
     *
     * @param cell the cell
     * @return whether it was removed
     */
    public boolean remove(EntityCell cell) {
        synchronized (lock) {
            EntityCell[] t = table;
            int i = cell.hash & (t.length - 1);
            EntityCell before = null;
            for (EntityCell c = t[i]; c != null; before = c, c = c.chainNext) {
                if (c == cell) {
                    // the cell keeps its own link: a lookup standing on it walks on
                    EntityCell after = c.chainNext;
                    if (before == null) {
                        SLOTS.setRelease(t, i, after);
                    } else {
                        NEXT.setRelease(before, after);
                    }
                    size = size - 1;
                    return true;
                }
            }
            return false;
        }
    }

    /** Doubles the buckets and relinks every chain; under the lock. */
    private void grow(EntityCell[] old) {
        EntityCell[] next = new EntityCell[old.length * 2];
        int mask = next.length - 1;
        for (EntityCell head : old) {
            EntityCell c = head;
            while (c != null) {
                EntityCell following = c.chainNext;
                int j = c.hash & mask;
                NEXT.setRelease(c, next[j]);
                next[j] = c;
                c = following;
            }
        }
        table = next; // the array's slots are published with it
    }

    /** How many cells the table holds. */
    public int size() {
        return size;
    }

    /**
     * Every cell, each once, as the table is at one moment (taken under the lock): for a walk that must reach every
     * cell, such as a shard's stop.
     *
     * @return the cells
     */
    public List<EntityCell> snapshot() {
        synchronized (lock) {
            List<EntityCell> all = new ArrayList<>(size);
            for (EntityCell head : table) {
                for (EntityCell c = head; c != null; c = c.chainNext) {
                    all.add(c);
                }
            }
            return all;
        }
    }

    /**
     * The cells as a collection read without the lock. A cell added or removed meanwhile may be seen or not, and while
     * the table grows a cell may be missed or seen twice: for sweeps and counts that are hints.
     *
     * @return the view
     */
    public Collection<EntityCell> values() {
        return values;
    }

    private final Collection<EntityCell> values = new AbstractCollection<>() {
        @Override
        public Iterator<EntityCell> iterator() {
            return new Walk(table);
        }

        @Override
        public int size() {
            return size;
        }
    };

    /** A walk of the buckets of one table array, and of their chains. */
    private static final class Walk implements Iterator<EntityCell> {

        private final EntityCell[] buckets;

        private int bucket;

        private @Nullable EntityCell ahead;

        Walk(EntityCell[] buckets) {
            this.buckets = buckets;
            this.ahead = after(null);
        }

        /** The cell after one (its link, else the next bucket's first), or the first of all. */
        private @Nullable EntityCell after(@Nullable EntityCell cell) {
            EntityCell c = cell == null ? null : (EntityCell) NEXT.getAcquire(cell);
            while (c == null && bucket < buckets.length) {
                c = (EntityCell) SLOTS.getAcquire(buckets, bucket++);
            }
            return c;
        }

        @Override
        public boolean hasNext() {
            return ahead != null;
        }

        @Override
        public EntityCell next() {
            EntityCell c = ahead;
            if (c == null) {
                throw new NoSuchElementException();
            }
            ahead = after(c);
            return c;
        }
    }
}
