package dev.sharding.test;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;
import dev.sharding.spi.EntityFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test entity for handoffs inside one JVM: it checks every sender's sequence like {@link SequenceChecker}, keeps
 * its state in a JVM-wide map so that the check spans moves between nodes, counts how many instances of each id are
 * alive at once, and measures the longest gap between two messages it handled (the pause a handoff causes).
 */
@ShardedEntity(type = "journal", numberOfShards = 30)
public class Journal {

    /** State per entity id, shared by the nodes of the JVM. */
    public static final ConcurrentHashMap<String, State> STATES = new ConcurrentHashMap<>();

    /** Live instances per entity id. */
    public static final ConcurrentHashMap<String, AtomicInteger> LIVE = new ConcurrentHashMap<>();

    /** The most instances of one id ever alive at once. */
    public static final AtomicInteger MAX_LIVE = new AtomicInteger();

    /** The longest gap between two messages of one entity, in nanoseconds. */
    public static final AtomicLong MAX_GAP_NANOS = new AtomicLong();

    private final EntityContext context;

    private final State state;

    /**
     * Creates the entity.
     *
     * @param context its context
     */
    public Journal(EntityContext context) {
        this.context = context;
        this.state = STATES.computeIfAbsent(context.entityId(), k -> new State());
        int live = LIVE.computeIfAbsent(context.entityId(), k -> new AtomicInteger())
                .incrementAndGet();
        MAX_LIVE.accumulateAndGet(live, Math::max);
    }

    /** When set, stopping an entity waits for it to open: holds a handoff between "stopping" and "stopped". */
    public static volatile java.util.concurrent.@org.jspecify.annotations.Nullable CountDownLatch stopGate;

    /** Forgets everything recorded. */
    public static void reset() {
        stopGate = null;
        STATES.clear();
        LIVE.clear();
        MAX_LIVE.set(0);
        MAX_GAP_NANOS.set(0);
    }

    /**
     * The type with a factory whose destroy step counts the instance out.
     *
     * @return the type
     */
    public static EntityType<Journal> type() {
        return EntityType.of(Journal.class, new EntityFactory<>() {
            @Override
            public Journal create(EntityContext ctx) {
                return new Journal(ctx);
            }

            @Override
            public void destroy(Journal entity) {
                java.util.concurrent.CountDownLatch gate = stopGate;
                if (gate != null) {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                LIVE.get(entity.context.entityId()).decrementAndGet();
                entity.state.stopped++;
            }
        });
    }

    /** One numbered message; numbers start at 1 per sender. */
    @EntityHandler
    public Long on(SequenceChecker.Seq seq) {
        synchronized (state) {
            long now = System.nanoTime();
            if (state.lastNanos != 0) {
                MAX_GAP_NANOS.accumulateAndGet(now - state.lastNanos, Math::max);
            }
            state.lastNanos = now;
            state.received++;
            long expected = state.last.getOrDefault(seq.sender(), 0L) + 1;
            if (seq.n() != expected) {
                state.violations++;
            }
            state.last.put(seq.sender(), seq.n());
            return seq.n();
        }
    }

    /** Reports what arrived. */
    @EntityHandler
    public SequenceChecker.Report on(SequenceChecker.GetReport get) {
        synchronized (state) {
            return new SequenceChecker.Report(
                    context.entityId(), context.nodeName(), Map.copyOf(state.last), state.violations, state.received);
        }
    }

    /** What one entity saw, across its incarnations. */
    public static final class State {

        final Map<String, Long> last = new HashMap<>();

        long violations;

        long received;

        long lastNanos;

        /** How many incarnations were stopped. */
        public volatile int stopped;
    }
}
