package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DensityOptionsTest {

    @Test
    void w9RunsOnlyWhenNamedWithTenMillionEntitiesInFourGigabytesByDefault() {
        LaunchOptions all = LaunchOptions.parse(new String[0]);
        LaunchOptions o = LaunchOptions.parse(new String[] {"--workloads=w9"});

        assertThat(all).isNotNull();
        assertThat(all.workloads()).doesNotContain("W9");
        assertThat(o).isNotNull();
        assertThat(o.workloads()).containsExactly("W9");
        assertThat(o.density()).isEqualTo(new DensityScenario.Options(10_000_000, "4g"));
    }

    @Test
    void readsTheSizeOfASmallRun() {
        LaunchOptions o = LaunchOptions.parse(new String[] {"--workloads=W9", "--w9-entities=200000", "--w9-heap=1g"});

        assertThat(o).isNotNull();
        assertThat(o.density()).isEqualTo(new DensityScenario.Options(200_000, "1g"));
    }

    @Test
    void refusesWrongValues() {
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W9", "--w9-entities=0"}))
                .isNull();
        assertThat(LaunchOptions.parse(new String[] {"--workloads=W9", "--w9-heap=lots"}))
                .isNull();
    }
}
