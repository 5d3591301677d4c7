package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClassHistogramTest {

    private static final String BEFORE = """
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:          1000          48000  [B (java.base@17.0.15)
               2:          1000          24000  java.lang.String (java.base@17.0.15)
               3:            10            640  dev.sharding.Old
            Total          2010          72640
            """;

    private static final String AFTER = """
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:          3000         144000  [B (java.base@17.0.15)
               2:          2000          64000  dev.sharding.bench.Counter
               3:          3000          72000  java.lang.String (java.base@17.0.15)
            Total          8000         280000
            """;

    @Test
    void readsEachClassOfAHistogram() {
        Map<String, long[]> h = ClassHistogram.parse(AFTER);

        assertThat(h).containsOnlyKeys("[B", "dev.sharding.bench.Counter", "java.lang.String");
        assertThat(h.get("[B")).containsExactly(3000, 144000);
    }

    @Test
    void givesTheGrowthPerEntityLargestFirstAndTheRestTogether() {
        List<Map<String, Object>> rows =
                ClassHistogram.perEntity(ClassHistogram.parse(BEFORE), ClassHistogram.parse(AFTER), 2000, 2);

        assertThat(rows).hasSize(3);
        assertThat(rows.get(0))
                .containsEntry("class", "[B")
                .containsEntry("bytes_per_entity", 48.0)
                .containsEntry("instances_per_entity", 1.0);
        assertThat(rows.get(1))
                .containsEntry("class", "dev.sharding.bench.Counter")
                .containsEntry("bytes_per_entity", 32.0);
        // String grew by 48000, Old went away (-640)
        assertThat(rows.get(2)).containsEntry("class", "(all others)").containsEntry("bytes_per_entity", 23.7);
    }
}
