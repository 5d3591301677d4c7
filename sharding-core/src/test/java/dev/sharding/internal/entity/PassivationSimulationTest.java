package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityTypeSettings;
import dev.sharding.PassivationSettings;
import dev.sharding.PassivationStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Drives the region's real {@link Passivation} over generated access traces, as Pekko's passivation simulator does,
 * and reports each strategy's hit ratio: the share of messages that found their entity alive. Sweeps come every 64
 * messages, as the node's periodic tick lets the live entities go a little over the limit between sweeps.
 *
 * <p>The assertions are the textbook orderings, which a wrong comparator or a wrong limit breaks: on a loop over more
 * entities than the limit, least-recently-used keeps nothing useful and most-recently-used keeps most; on a skewed
 * (Zipf) trace, least-frequently-used keeps the hot entities best and most-recently-used worst.
 */
class PassivationSimulationTest {

    private static final int SHARDS = 32;

    private static final int LIMIT = 1_000;

    private static final int SWEEP_EVERY = 64;

    /** One simulated entity. */
    private static final class Sim implements Passivation.Candidate {

        boolean active;

        long lastActive;

        long messages;

        @Override
        public boolean isActive() {
            return active;
        }

        @Override
        public long lastActiveMillis() {
            return lastActive;
        }

        @Override
        public long messages() {
            return messages;
        }

        @Override
        public void passivate(long idleSinceMillis, boolean overLimit) {
            active = false; // the simulation passivates at once; the runtime does it in the entity's mailbox order
        }
    }

    /** The outcome of one run. */
    private record Run(double hitRatio, int mostActiveAfterSweep) {}

    private static final Map<String, int[]> TRACES = new HashMap<>();

    private static final Map<String, Map<PassivationStrategy, Run>> RESULTS = new HashMap<>();

    @BeforeAll
    static void simulate() {
        TRACES.put("zipf", zipf(20_000, 0.9, 200_000, 7));
        TRACES.put("loop", loop(1_200, 200_000));
        TRACES.put("zipf+scans", zipfWithScans(20_000, 0.9, 200_000, 11));
        StringBuilder table = new StringBuilder(String.format(
                "%nPassivation hit ratios, limit %d live entities, a sweep every %d messages:%n%-28s",
                LIMIT, SWEEP_EVERY, "strategy"));
        List<String> names = List.of("zipf", "loop", "zipf+scans");
        names.forEach(n -> table.append(String.format("%12s", n)));
        for (PassivationStrategy strategy : PassivationStrategy.values()) {
            table.append(String.format("%n%-28s", strategy.name().toLowerCase().replace('_', '-')));
            for (String name : names) {
                Run run = run(strategy, TRACES.get(name));
                RESULTS.computeIfAbsent(name, k -> new EnumMap<>(PassivationStrategy.class))
                        .put(strategy, run);
                table.append(String.format("%12.3f", run.hitRatio()));
            }
        }
        System.out.println(table);
    }

    private static Run run(PassivationStrategy strategy, int[] trace) {
        Map<Integer, List<Sim>> shards = new HashMap<>();
        Sim[] entities = new Sim[trace.length == 0 ? 0 : max(trace) + 1];
        int[] active = {0};
        Passivation passivation = new Passivation(
                SHARDS,
                shards::get,
                () -> Duration.ZERO, // no idle passivation: only the limit
                EntityTypeSettings.builder()
                        .passivation(strategy)
                        .activeEntityLimit(strategy == PassivationStrategy.IDLE ? LIMIT : null)
                        .build(),
                PassivationSettings.DEFAULT.withActiveEntityLimit(LIMIT),
                () -> active[0],
                false);
        long hits = 0;
        int most = 0;
        for (int i = 0; i < trace.length; i++) {
            int id = trace[i];
            Sim e = entities[id];
            if (e == null) {
                e = new Sim();
                entities[id] = e;
                shards.computeIfAbsent(id % SHARDS, k -> new ArrayList<>()).add(e);
            }
            if (e.active) {
                hits++;
            } else {
                e.active = true;
                e.messages = 0;
            }
            e.lastActive = i;
            e.messages++;
            if (i % SWEEP_EVERY == SWEEP_EVERY - 1) {
                active[0] = count(shards);
                passivation.passivateOverLimit();
                active[0] = count(shards);
                most = Math.max(most, active[0]);
            }
        }
        return new Run((double) hits / trace.length, most);
    }

    private static int count(Map<Integer, List<Sim>> shards) {
        int n = 0;
        for (List<Sim> list : shards.values()) {
            for (Sim s : list) {
                if (s.active) {
                    n++;
                }
            }
        }
        return n;
    }

    private static int max(int[] values) {
        int m = 0;
        for (int v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    /** Ids drawn from a Zipf distribution over {@code n} ids with exponent {@code s}. */
    static int[] zipf(int n, double s, int length, long seed) {
        double[] cumulative = new double[n];
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += 1 / Math.pow(k + 1, s);
            cumulative[k] = sum;
        }
        Random random = new Random(seed);
        int[] trace = new int[length];
        for (int i = 0; i < length; i++) {
            double u = random.nextDouble() * sum;
            int lo = 0;
            int hi = n - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cumulative[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            trace[i] = lo;
        }
        return trace;
    }

    /** Ids 0 to n - 1 over and over. */
    static int[] loop(int n, int length) {
        int[] trace = new int[length];
        for (int i = 0; i < length; i++) {
            trace[i] = i % n;
        }
        return trace;
    }

    /** A Zipf trace interrupted every 40,000 messages by a scan of 2,000 ids seen once. */
    static int[] zipfWithScans(int n, double s, int length, long seed) {
        int[] trace = zipf(n, s, length, seed);
        int fresh = n;
        for (int start = 20_000; start + 2_000 < length; start += 40_000) {
            for (int i = 0; i < 2_000; i++) {
                trace[start + i] = fresh++;
            }
        }
        return trace;
    }

    private static double ratio(String trace, PassivationStrategy strategy) {
        return RESULTS.get(trace).get(strategy).hitRatio();
    }

    @Test
    void everyStrategyKeepsItsRegionWithinTheLimitAtEachSweep() {
        RESULTS.forEach((trace, runs) -> runs.forEach((strategy, run) -> assertThat(run.mostActiveAfterSweep())
                .as("%s on %s", strategy, trace)
                .isLessThanOrEqualTo(LIMIT)));
    }

    @Test
    void onALoopLongerThanTheLimitMostRecentlyUsedKeepsWhatLeastRecentlyUsedThrowsAway() {
        assertThat(ratio("loop", PassivationStrategy.LEAST_RECENTLY_USED)).isLessThan(0.1);
        assertThat(ratio("loop", PassivationStrategy.MOST_RECENTLY_USED)).isGreaterThan(0.6);
    }

    @Test
    void onSkewedAccessLeastFrequentlyUsedKeepsTheHotEntitiesBest() {
        for (String trace : List.of("zipf", "zipf+scans")) {
            double lfu = ratio(trace, PassivationStrategy.LEAST_FREQUENTLY_USED);
            double lru = ratio(trace, PassivationStrategy.LEAST_RECENTLY_USED);
            double mru = ratio(trace, PassivationStrategy.MOST_RECENTLY_USED);
            assertThat(lfu).as("%s: lfu over lru", trace).isGreaterThan(lru);
            assertThat(lru).as("%s: lru over mru", trace).isGreaterThan(mru);
        }
        assertThat(ratio("zipf", PassivationStrategy.IDLE))
                .as("idle with a limit of its own orders as least-recently-used")
                .isEqualTo(ratio("zipf", PassivationStrategy.LEAST_RECENTLY_USED));
    }
}
