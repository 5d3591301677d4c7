package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityTypeSettings;
import dev.sharding.PassivationSettings;
import dev.sharding.PassivationStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The idle and over-limit passes of {@link Passivation}, over fake entities and a fake clock. */
class PassivationTest {

    /** A fake entity that records the passivations it was asked for. */
    private static final class Fake implements Passivation.Candidate {

        final String id;

        boolean active = true;

        long lastActive;

        final List<String> asked = new ArrayList<>();

        Fake(String id, long lastActive) {
            this.id = id;
            this.lastActive = lastActive;
        }

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
            return 1;
        }

        @Override
        public void passivate(long idleSinceMillis, boolean overLimit) {
            asked.add(overLimit ? "over-limit" : "idle-since-" + idleSinceMillis);
        }
    }

    private final Map<Integer, List<Fake>> shards = new HashMap<>();

    private Duration idleTimeout = Duration.ofSeconds(10);

    /** The type's own limit ({@code entities.<type>.passivation.active-entity-limit}), or null for none. */
    private @Nullable Integer ownLimit;

    /** The deprecated {@code passivation.max-active-entities}. */
    private int idleLimit;

    private PassivationStrategy strategy = PassivationStrategy.IDLE;

    private Passivation passivation(int numberOfShards, boolean remember) {
        return new Passivation(
                numberOfShards,
                shards::get,
                () -> idleTimeout,
                EntityTypeSettings.builder()
                        .passivation(strategy)
                        .activeEntityLimit(ownLimit)
                        .build(),
                new PassivationSettings(Duration.ofSeconds(120), idleLimit, 1000),
                () -> shards.values().stream()
                        .mapToInt(l -> (int) l.stream().filter(f -> f.active).count())
                        .sum(),
                remember);
    }

    private Fake entity(int shard, String id, long lastActive) {
        Fake f = new Fake(id, lastActive);
        shards.computeIfAbsent(shard, k -> new ArrayList<>()).add(f);
        return f;
    }

    @Test
    void anIdlePassAsksOnlyEntitiesIdleSinceBeforeTheTimeout() {
        Fake idle = entity(0, "idle", 1_000);
        Fake busy = entity(0, "busy", 15_000);
        Fake stopped = entity(1, "stopped", 0);
        stopped.active = false;
        Passivation p = passivation(4, false);

        p.startIdlePass(20_000);
        int visited = p.continueIdlePass(1_000);

        assertThat(visited).isEqualTo(3);
        assertThat(idle.asked).containsExactly("idle-since-10000");
        assertThat(busy.asked).isEmpty();
        assertThat(stopped.asked).isEmpty();
        assertThat(p.idlePassRunning()).isFalse();
    }

    @Test
    void anIdlePassGoesOnWithinItsBudgetShardByShard() {
        for (int shard = 0; shard < 4; shard++) {
            for (int i = 0; i < 10; i++) {
                entity(shard, shard + "-" + i, 0);
            }
        }
        Passivation p = passivation(4, false);
        p.startIdlePass(60_000);

        assertThat(p.continueIdlePass(15)).isEqualTo(20); // whole shards: the budget is a lower bound
        assertThat(p.idlePassRunning()).isTrue();
        assertThat(shards.get(2).get(0).asked).isEmpty();
        assertThat(p.continueIdlePass(15)).isEqualTo(20);
        assertThat(p.continueIdlePass(15)).isZero();
        assertThat(p.idlePassRunning()).isFalse();
        assertThat(shards.values().stream().flatMap(List::stream)).allMatch(f -> f.asked.size() == 1);
    }

    @Test
    void aZeroIdleTimeoutStartsNoPass() {
        entity(0, "a", 0);
        idleTimeout = Duration.ZERO;
        Passivation p = passivation(1, false);

        p.startIdlePass(1_000_000);

        assertThat(p.idlePassRunning()).isFalse();
        assertThat(p.continueIdlePass(100)).isZero();
    }

    @Test
    void aPassStartedWhileOneRunsGoesOnWithTheNewLimit() {
        Fake a = entity(0, "a", 5_000);
        Fake b = entity(1, "b", 5_000);
        Passivation p = passivation(2, false);
        p.startIdlePass(12_000); // idle since before 2,000: neither
        p.continueIdlePass(1); // shard 0 looked at
        p.startIdlePass(20_000); // idle since before 10,000: both, but shard 0 was passed already

        p.continueIdlePass(100);

        assertThat(a.asked).isEmpty();
        assertThat(b.asked).containsExactly("idle-since-10000");
    }

    @Test
    void overTheLimitTheLeastRecentlyActiveGo() {
        Fake oldest = entity(0, "oldest", 100);
        Fake middle = entity(1, "middle", 200);
        Fake newest = entity(1, "newest", 300);
        ownLimit = 1;

        passivation(2, false).passivateOverLimit();

        assertThat(oldest.asked).containsExactly("over-limit");
        assertThat(middle.asked).containsExactly("over-limit");
        assertThat(newest.asked).isEmpty();
    }

    @Test
    void noLimitOrRememberedEntitiesMeanNoPassivationForTheLimit() {
        Fake a = entity(0, "a", 100);
        entity(0, "b", 200);
        ownLimit = 0;
        passivation(1, false).passivateOverLimit();
        ownLimit = 1;
        passivation(1, true).passivateOverLimit();

        assertThat(a.asked).isEmpty();
    }

    @Test
    void shardsNotHostedAreSkipped() {
        Collection<? extends Passivation.Candidate> none = shards.get(3);
        assertThat(none).isNull();
        Fake a = entity(2, "a", 0);
        Passivation p = passivation(4, false);
        p.startIdlePass(100_000);

        assertThat(p.continueIdlePass(100)).isEqualTo(1);
        assertThat(a.asked).hasSize(1);
    }

    @Test
    void theLimitIsTheOneSetWhileRunningThenTheTypesOwnThenItsShare() {
        strategy = PassivationStrategy.LEAST_RECENTLY_USED;
        Passivation shared = passivation(1, false);
        assertThat(shared.limit())
                .as("a limit strategy starts with the node's limit as its share")
                .isEqualTo(1000);
        assertThat(shared.sharesNodeLimit()).isTrue();
        shared.share(250);
        assertThat(shared.limit()).isEqualTo(250);

        ownLimit = 40;
        Passivation own = passivation(1, false);
        own.share(250);
        assertThat(own.limit()).as("its own limit replaces the share").isEqualTo(40);
        assertThat(own.sharesNodeLimit())
                .as("and it takes no share of the node's")
                .isFalse();
        own.change(null, 7);
        assertThat(own.limit()).as("a limit set while running comes first").isEqualTo(7);

        shared.change(null, 0);
        assertThat(shared.limit()).as("zero set while running: no limit").isZero();
        assertThat(shared.sharesNodeLimit()).isFalse();
    }

    @Test
    void theIdleStrategyHasNoLimitButItsOwnOrTheDeprecatedOne() {
        assertThat(passivation(1, false).limit()).isZero();
        idleLimit = 30;
        assertThat(passivation(1, false).limit())
                .as("max-active-entities still limits an idle type without its own")
                .isEqualTo(30);
        ownLimit = 12;
        Passivation p = passivation(1, false);
        assertThat(p.limit()).isEqualTo(12);
        assertThat(p.sharesNodeLimit()).isFalse();
        p.change(PassivationStrategy.LEAST_FREQUENTLY_USED, null);
        assertThat(p.limit()).as("its own limit holds under another strategy").isEqualTo(12);
    }
}
