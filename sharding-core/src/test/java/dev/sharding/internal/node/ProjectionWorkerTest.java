package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProjectionWorkerTest {

    @Test
    void aCaughtUpWorkerLooksLessOftenTheLongerItFindsNothingUpToOnceASecond() {
        List<Long> waits = new ArrayList<>();
        long wait = ProjectionWorker.POLL_MILLIS;
        for (int i = 0; i < 6; i++) {
            waits.add(wait);
            wait = ProjectionWorker.nextIdleWait(wait);
        }
        assertThat(waits).containsExactly(200L, 400L, 800L, 1_000L, 1_000L, 1_000L);
    }
}
