package dev.sharding.internal.entity;

import dev.sharding.EntityTypeSettings;
import dev.sharding.PassivationSettings;
import dev.sharding.PassivationStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Passivation of one region's entities, on the control thread:
 *
 * <ul>
 * <li><b>Idle.</b> Every quarter of the type's idle timeout a pass starts over the live entities, looking for those
 * idle since before now minus the timeout; it goes on a few shards per tick within a budget, so that a region of a
 * million entities never holds the control thread for long ({@link #startIdlePass}, {@link #continueIdlePass}). A
 * pass still running goes on with the new limit.</li>
 * <li><b>Over the limit.</b> When the live entities of the region exceed its limit, those beyond it are passivated
 * in the order of the type's {@link PassivationStrategy} ({@link #passivateOverLimit}): least recently used first for
 * {@code IDLE} and {@code LEAST_RECENTLY_USED}, most recently used first for {@code MOST_RECENTLY_USED}, fewest
 * messages first for {@code LEAST_FREQUENTLY_USED}. The limit ({@link #limit()}) is, first to last: one set while the
 * node runs ({@link #change}), the type's own ({@code entities.<type>.passivation.active-entity-limit}), and else its
 * share of {@code passivation.active-entity-limit} for the limit strategies ({@link #share}), or none for
 * {@code IDLE} (but the deprecated {@code passivation.max-active-entities}). Remembered entities are never passivated
 * for the limit.</li>
 * </ul>
 *
 * <p>A pass only asks: the entity acts on a passivation in its own mailbox order, so one that took a message since
 * is left alone (see {@link Candidate#passivate}).
 */
public final class Passivation {

    /** A live entity as passivation sees it. */
    public interface Candidate {

        /** Whether it has a live instance. */
        boolean isActive();

        /** When it last took a message, on the node's coarse clock. */
        long lastActiveMillis();

        /** How many messages it took since it started here. */
        long messages();

        /**
         * Asks it to passivate, in its own mailbox order.
         *
         * @param idleSinceMillis it stays if it took a message after this (idle passivation), or 0
         * @param overLimit whether it goes in any case (the limit of live entities)
         */
        void passivate(long idleSinceMillis, boolean overLimit);
    }

    private final int numberOfShards;

    /** The live entities of a shard hosted here and not stopping, or {@code null}. */
    private final IntFunction<@Nullable Collection<? extends Candidate>> hosted;

    private final Supplier<Duration> idleTimeout;

    /** The type's own limit from the settings, or -1 for none. */
    private final int ownLimit;

    /** The limit of an {@code IDLE} type without its own (deprecated {@code max-active-entities}), zero for none. */
    private final int idleLimit;

    private volatile PassivationStrategy strategy;

    /** A limit set while the node runs, or -1 for the one the settings give. */
    private volatile int limitOverride = -1;

    /** This region's share of the node's limit for the limit strategies. */
    private volatile int share;

    private final IntSupplier activeEntities;

    private final boolean rememberEntities;

    /** The next shard of the running idle pass, or -1 when none runs. */
    private int next = -1;

    /** Entities last active at or before this are idle in the running pass. */
    private long idleSince;

    public Passivation(
            int numberOfShards,
            IntFunction<@Nullable Collection<? extends Candidate>> hosted,
            Supplier<Duration> idleTimeout,
            EntityTypeSettings type,
            PassivationSettings node,
            IntSupplier activeEntities,
            boolean rememberEntities) {
        this.strategy = type.passivation();
        this.share = node.activeEntityLimit();
        this.numberOfShards = numberOfShards;
        this.hosted = hosted;
        this.idleTimeout = idleTimeout;
        Integer own = type.activeEntityLimit();
        this.ownLimit = own == null ? -1 : own;
        this.idleLimit = deprecatedIdleLimit(node);
        this.activeEntities = activeEntities;
        this.rememberEntities = rememberEntities;
    }

    @SuppressWarnings("deprecation")
    private static int deprecatedIdleLimit(PassivationSettings node) {
        return node.maxActiveEntities();
    }

    /** Starts a pass for entities idle since before {@code nowMillis} minus the idle timeout (none when zero). */
    public void startIdlePass(long nowMillis) {
        Duration idle = idleTimeout.get();
        if (idle.isZero()) {
            return;
        }
        idleSince = nowMillis - idle.toMillis();
        if (next < 0) {
            next = 0;
        }
    }

    /**
     * Goes on with the running idle pass, shard by shard, until about {@code budget} entities were looked at.
     *
     * @param budget how many entities to look at, at least
     * @return how many were looked at
     */
    public int continueIdlePass(int budget) {
        int visited = 0;
        long since = idleSince;
        while (next >= 0 && visited < budget) {
            if (next >= numberOfShards) {
                next = -1;
                break;
            }
            Collection<? extends Candidate> cells = hosted.apply(next++);
            if (cells == null) {
                continue;
            }
            for (Candidate cell : cells) {
                visited++;
                if (cell.isActive() && cell.lastActiveMillis() <= since) {
                    cell.passivate(since, false);
                }
            }
        }
        return visited;
    }

    /** Whether an idle pass is running. */
    public boolean idlePassRunning() {
        return next >= 0;
    }

    /** The type's strategy now. */
    public PassivationStrategy strategy() {
        return strategy;
    }

    /** The most live entities of this region now; zero for none. */
    public int limit() {
        int set = limitOverride;
        if (set >= 0) {
            return set;
        }
        if (ownLimit >= 0) {
            return ownLimit;
        }
        return strategy.limited() ? share : idleLimit;
    }

    /**
     * Whether this region takes a share of the node's limit: its strategy has a limit and it has none of its own.
     *
     * @return true when the node's limit is divided with it
     */
    public boolean sharesNodeLimit() {
        return strategy.limited() && limitOverride < 0 && ownLimit < 0;
    }

    /** Whether a limit was set while the node runs. */
    boolean limitChanged() {
        return limitOverride >= 0;
    }

    /** Sets this region's share of the node's limit for the limit strategies. */
    public void share(int value) {
        share = value;
    }

    /**
     * Changes the strategy or the limit while the node runs; the next sweep applies them.
     *
     * @param newStrategy the strategy, or {@code null} to keep it
     * @param newLimit this region's limit, overriding the settings (zero for none), or {@code null} to keep it
     */
    public void change(@Nullable PassivationStrategy newStrategy, @Nullable Integer newLimit) {
        if (newStrategy != null) {
            strategy = newStrategy;
        }
        if (newLimit != null) {
            if (newLimit < 0) {
                throw new IllegalArgumentException("An active entity limit must be zero (none) or positive");
            }
            limitOverride = newLimit;
        }
    }

    /** Passivates the live entities beyond the limit, in the order of the strategy. */
    public void passivateOverLimit() {
        int max = limit();
        int over = activeEntities.getAsInt() - max;
        if (max <= 0 || over <= 0 || rememberEntities) {
            return;
        }
        List<Candidate> live = new ArrayList<>();
        for (int shard = 0; shard < numberOfShards; shard++) {
            Collection<? extends Candidate> cells = hosted.apply(shard);
            if (cells != null) {
                for (Candidate cell : cells) {
                    if (cell.isActive()) {
                        live.add(cell);
                    }
                }
            }
        }
        live.sort(order(strategy));
        for (Candidate cell : live.subList(0, Math.min(over, live.size()))) {
            cell.passivate(0, true);
        }
    }

    /** Which live entities go first when there are too many. */
    static Comparator<Candidate> order(PassivationStrategy strategy) {
        Comparator<Candidate> leastRecent = Comparator.comparingLong(Candidate::lastActiveMillis);
        return switch (strategy) {
            case IDLE, LEAST_RECENTLY_USED -> leastRecent;
            case MOST_RECENTLY_USED -> leastRecent.reversed();
            case LEAST_FREQUENTLY_USED ->
                Comparator.comparingLong(Candidate::messages).thenComparing(leastRecent);
        };
    }
}
