package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class CpuSplitTest {

    @Test
    void threadsAreGroupedByTheirNameWithoutItsDigits() {
        assertThat(ProcessCpu.byThreadGroup(ProcessHandle.current().pid()))
                .as("this JVM's threads, \"Reference Handl\" whatever its number")
                .containsKey("Reference Handl");
    }

    @Test
    void aPhaseSaysWhichThreadGroupTookItsCpuAndWhenItRan() throws Exception {
        long self = ProcessHandle.current().pid();
        CpuSplit split = new CpuSplit(Map.of("me", () -> List.of(self))).byThreadGroup(List.of("me"));
        AtomicBoolean spin = new AtomicBoolean(true);
        Thread busy = new Thread(
                () -> {
                    long x = 0;
                    while (spin.get()) {
                        x += System.nanoTime() & 1;
                    }
                    if (x == 42) {
                        System.out.print("");
                    }
                },
                "busy-7");
        busy.start();
        split.snapshot();
        // until the kernel counted at least two ticks (1/100 s each) of the busy thread
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (ProcessCpu.byThreadGroup(self).getOrDefault("busy-#", 0.0) < 0.02) {
            assertThat(System.nanoTime())
                    .as("the busy thread counted within 30 s")
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
        split.snapshot();
        spin.set(false);
        busy.join();

        ObjectNode phase =
                tools.jackson.databind.json.JsonMapper.builder().build().createObjectNode();
        split.putPhase(0, 1, phase);

        assertThat(phase.get("nodes_cpu_ms_per_request_by_thread").get("busy-#").asDouble())
                .isGreaterThan(0);
        assertThat(phase.get("from").asString()).isLessThan(phase.get("to").asString());
    }
}
