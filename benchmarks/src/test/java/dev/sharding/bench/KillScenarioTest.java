package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class KillScenarioTest {

    private static final List<String> TWELVE =
            List.of("n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "n12");

    @Test
    void killsTheCoordinatorAndN1AndSpreadsTheOthers() {
        assertThat(KillScenario.victims(TWELVE, "n1", 3)).containsExactly("n1", "n4", "n10");
        assertThat(KillScenario.victims(TWELVE, "n5", 3)).containsExactly("n5", "n1", "n8");
        assertThat(KillScenario.victims(TWELVE, "n5", 1)).containsExactly("n5");
        assertThat(KillScenario.victims(TWELVE, "unknown", 2)).containsExactly("n1", "n7");
        assertThat(KillScenario.victims(List.of("n1", "n2", "n3", "n4", "n5", "n6"), "n1", 2))
                .containsExactly("n1", "n4");
    }

    @Test
    void percentilesAreNearestRank() {
        double[] sorted = {1.0, 2.0, 3.0, 4.0};

        assertThat(AccountPolls.percentile(sorted, 50)).isEqualTo(2.0);
        assertThat(AccountPolls.percentile(sorted, 99)).isEqualTo(4.0);
        assertThat(AccountPolls.percentile(sorted, 100)).isEqualTo(4.0);
        assertThat(AccountPolls.percentile(new double[0], 50)).isNull();
    }

    @Test
    void answersAreCountedPerWholeSecondFromTheKill() {
        assertThat(KillScenario.perSecond(new double[] {0.2, 0.9, 1.0, 3.5})).containsExactly(2, 1, 0, 1);
        assertThat(KillScenario.perSecond(new double[0])).isEmpty();
    }

    @Test
    void optionsDefaultToTwelveNodesThreeKilledAThousandAccountsAndRefuseALosingSide() {
        LaunchOptions o = LaunchOptions.parse(new String[] {"--workloads=w10"});

        assertThat(o).isNotNull();
        assertThat(o.workloads()).containsExactly("W10");
        assertThat(o.kill()).isEqualTo(new KillScenario.Options(12, 3, 1000, "256m", 64, false, 0));
        assertThat(LaunchOptions.parse(new String[] {
                            "--workloads=W10", "--w10-nodes=6", "--w10-kill=2", "--w10-accounts=50", "--w10-readers=256"
                        })
                        .kill())
                .isEqualTo(new KillScenario.Options(6, 2, 50, "256m", 256, false, 0));
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W10", "--w10-read-before=true"})
                        .kill()
                        .readBefore())
                .isTrue();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W10", "--w10-warm-s=90"})
                        .kill()
                        .warmSeconds())
                .isEqualTo(90);
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W10", "--w10-warm-s=-1"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W10", "--w10-nodes=6", "--w10-kill=3"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W10", "--w10-kill=0"}))
                .isNull();
    }
}
