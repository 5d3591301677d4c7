package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class HttpOptionsTest {

    @Test
    void defaultsAreThoseOfTheWrkScript() {
        LaunchOptions o = LaunchOptions.parse(new String[] {"--workloads=h1"});

        assertThat(o).isNotNull();
        assertThat(o.workloads()).containsExactly("H1");
        assertThat(o.http().stores()).containsExactly("h2");
        assertThat(o.http().connectionsPerNode()).isEqualTo(21);
        assertThat(o.http().accounts()).isEqualTo(10_000);
        assertThat(o.http().phaseSeconds()).isEqualTo(20);
        assertThat(o.http().warmupSeconds()).isZero();
        assertThat(o.http().heap()).isEqualTo("384m");
        assertThat(o.http().sampleJar()).endsWith(Path.of("sample-app", "target", "sample-app.jar"));
        assertThat(o.http().baselineJar())
                .endsWith(Path.of("benchmarks-baseline", "target", "benchmarks-baseline.jar"));
    }

    @Test
    void readsEveryOption() {
        LaunchOptions o = LaunchOptions.parse(new String[] {
            "--workloads=H1,H0,h2-reads,H0-READS",
            "--h-store=H2,postgresql",
            "--h-connections=5",
            "--h-accounts=100",
            "--h-phase-s=3",
            "--h-warmup-s=30",
            "--h-heap=256m",
            "--sample-jar=/opt/s.jar",
            "--baseline-jar=/opt/b.jar"
        });

        assertThat(o).isNotNull();
        assertThat(o.workloads()).containsExactly("H1", "H0", "H2-READS", "H0-READS");
        assertThat(o.http())
                .isEqualTo(new HttpScenario.Options(
                        List.of("h2", "postgresql"),
                        5,
                        100,
                        3,
                        30,
                        "256m",
                        Path.of("/opt/s.jar"),
                        Path.of("/opt/b.jar")));
    }

    @Test
    void refusesWrongValues() {
        assertThat(LaunchOptions.parse(new String[] {"--workloads=H1", "--h-store=mysql"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=H1", "--h-phase-s=0"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=H1", "--h-warmup-s=-1"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=H1", "--h-heap=lots"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=H3"})).isNull();
    }
}
