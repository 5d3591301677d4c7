package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class ScaleIdleTest {

    @Test
    void splitsAWindowsCpuByThreadGroupLargestFirstLeavingOutTheSmallest() {
        Map<String, Double> before = Map.of("sharding-contro", 1.0, "Timer runner-#,", 2.0, "C# CompilerThre", 5.0);
        Map<String, Double> after = Map.of(
                "sharding-contro", 1.04, // 0.2 % of a core over 20 s
                "Timer runner-#,", 2.006, // 0.03 %: left out
                "C# CompilerThre", 5.2, // 1 %
                "H# TCP Server (", 0.02); // a thread that started in the window: 0.1 %

        ObjectNode o = ScaleIdle.byThread(before, after, 20);

        assertThat(List.copyOf(o.propertyNames()))
                .containsExactly("C# CompilerThre", "sharding-contro", "H# TCP Server (");
        assertThat(o.get("C# CompilerThre").asDouble()).isEqualTo(1.0);
        assertThat(o.get("sharding-contro").asDouble()).isEqualTo(0.2);
        assertThat(o.get("H# TCP Server (").asDouble()).isEqualTo(0.1);
    }
}
