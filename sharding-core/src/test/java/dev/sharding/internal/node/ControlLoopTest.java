package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.internal.transport.SendingThreads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ControlLoopTest {

    private final ControlLoop loop = new ControlLoop();

    @AfterEach
    void stop() {
        loop.shutdown();
    }

    @Test
    void theControlThreadNeverWaitsToSendAndOtherThreadsMay() {
        assertThat(loop.read(SendingThreads::mayWait, true)).isFalse();
        assertThat(loop.read(() -> Thread.currentThread().getName(), "")).isEqualTo("sharding-control");
        assertThat(SendingThreads.mayWait()).isTrue();
    }
}
