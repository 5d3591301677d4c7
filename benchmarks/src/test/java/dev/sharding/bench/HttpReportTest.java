package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class HttpReportTest {

    @Test
    void reportsThroughputAndPercentilesOfAPhaseMergedOverConnections() {
        HttpLoad.PhaseTally one = new HttpLoad.PhaseTally();
        HttpLoad.PhaseTally two = new HttpLoad.PhaseTally();
        for (int us = 1; us <= 1_000; us++) {
            (us % 2 == 0 ? one : two).deposits.recordValue(us * 100L);
        }
        one.ok = 500;
        two.ok = 499;
        two.serverErrors = 1;
        HttpLoad.PhaseTally all = new HttpLoad.PhaseTally();
        all.add(one);
        all.add(two);

        ObjectNode p = HttpReport.phase(all, 2.0, false);

        assertThat(p.get("deposits_per_s").asLong()).isEqualTo(500);
        assertThat(p.get("requests").asLong()).isEqualTo(1_000);
        assertThat(p.get("p50_us").asDouble()).isCloseTo(50_000, within(50.0));
        assertThat(p.get("p99_us").asDouble()).isCloseTo(99_000, within(100.0));
        assertThat(p.get("max_us").asDouble()).isCloseTo(100_000, within(100.0));
        assertThat(p.get("status_5xx").asLong()).isEqualTo(1);
        assertThat(p.has("read_p50_us")).isFalse();
    }

    @Test
    void splitsDepositsAndReadsWhenTheMixHasReads() {
        HttpLoad.PhaseTally t = new HttpLoad.PhaseTally();
        for (int i = 0; i < 90; i++) {
            t.reads.recordValue(1_000);
        }
        for (int i = 0; i < 10; i++) {
            t.deposits.recordValue(9_000);
        }

        ObjectNode p = HttpReport.phase(t, 1.0, true);

        assertThat(p.get("requests_per_s").asLong()).isEqualTo(100);
        assertThat(p.get("reads_per_s").asLong()).isEqualTo(90);
        assertThat(p.get("read_p99_us").asDouble()).isCloseTo(1_000, within(1.0));
        assertThat(p.get("deposit_p50_us").asDouble()).isCloseTo(9_000, within(10.0));
        assertThat(p.get("p50_us").asDouble()).isCloseTo(1_000, within(1.0));
    }

    @Test
    void readsCpuTicksFromProcStatEvenWithParenthesesInTheName() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 40 0 100 0 0";

        assertThat(ProcessCpu.parse(stat)).isEqualTo(18.01);
        assertThat(ProcessCpu.seconds(ProcessHandle.current().pid())).isPositive();
    }
}
