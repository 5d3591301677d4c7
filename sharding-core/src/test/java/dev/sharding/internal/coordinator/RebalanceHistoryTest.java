package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.internal.protocol.RebalanceReport;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The recent rebalances the coordinator keeps for operators, on a clock the test moves. */
class RebalanceHistoryTest {

    private static final long MILLI = 1_000_000L;

    private static final Member A = new Member(0, 1, "a");

    private static final Member B = new Member(0, 2, "b");

    private static final Member C = new Member(0, 3, "c");

    private final RebalanceHistory history = new RebalanceHistory();

    @Test
    void aRoundCountsItsMovesFromAndToAndGivesItsAge() {
        RebalanceHistory.Round round = history.start(5_000 * MILLI);
        round.left(A);
        round.left(A);
        round.left(B);
        round.arrived(C);

        assertThat(history.report(5_250 * MILLI))
                .containsExactly(new RebalanceReport(250, 1, 3, Map.of("a", 2, "b", 1), Map.of("c", 1)));

        round.arrived(C);
        round.arrived(B);
        assertThat(history.report(6_000 * MILLI))
                .containsExactly(new RebalanceReport(1000, 1, 3, Map.of("a", 2, "b", 1), Map.of("b", 1, "c", 2)));
    }

    @Test
    void theNewestRoundsComeFirstAndOnlyTheNewestAreKept() {
        for (int i = 0; i < RebalanceHistory.CAPACITY + 5; i++) {
            history.start(i * MILLI).left(A);
        }
        long now = 100 * MILLI;
        assertThat(history.report(now))
                .hasSize(RebalanceHistory.CAPACITY)
                .extracting(RebalanceReport::ageMillis)
                .startsWith(100L - (RebalanceHistory.CAPACITY + 4))
                .endsWith(100L - 5)
                .isSorted();
    }

    @Test
    void theRoundsThatContinueARebalanceCountInItsEntryAndAreNoRebalanceOfTheirOwn() {
        int[] started = {0};
        history.onStart(() -> started[0]++);
        history.continueLatest(1_000 * MILLI).left(A); // none kept yet: a new one
        history.continueLatest(1_100 * MILLI).left(A);
        history.continueLatest(1_200 * MILLI).left(B);

        assertThat(history.report(2_000 * MILLI))
                .as("one rebalance of three rounds, aged from its first")
                .containsExactly(new RebalanceReport(1000, 3, 3, Map.of("a", 2, "b", 1), Map.of()));
        assertThat(started[0]).as("rebalances counted").isEqualTo(1);

        history.start(3_000 * MILLI).left(C);
        assertThat(history.report(3_000 * MILLI)).hasSize(2);
        assertThat(started[0]).isEqualTo(2);
    }

    @Test
    void nothingIsReportedBeforeTheFirstRound() {
        assertThat(history.report(0)).isEmpty();
    }
}
