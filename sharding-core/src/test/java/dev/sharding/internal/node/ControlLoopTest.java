package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.sharding.internal.transport.SendingThreads;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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

    /**
     * Work handed to a stopped node's control thread (a retry its last task schedules, a store completion, a caller's
     * request) is dropped: never thrown at whoever handed it in, and never left for a waiter to wait on.
     */
    @Test
    void workHandedInAfterTheStopIsDroppedNotThrown() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> thrownInTask = new AtomicReference<>();
        loop.offer(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException stopping) {
                // shutdown interrupts the running task, as a crash does
            }
            try { // the last task of a stopped node schedules a retry
                loop.executor().schedule(() -> {}, 1, TimeUnit.SECONDS);
            } catch (Throwable t) {
                thrownInTask.set(t);
            }
        });
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        loop.shutdown();
        release.countDown();

        assertThatCode(() -> loop.executor().execute(() -> {})).doesNotThrowAnyException();
        ScheduledFuture<?> late = loop.executor().schedule(() -> {}, 0, TimeUnit.MILLISECONDS);
        assertThat(late.isCancelled()).isTrue();
        assertThat(loop.offer(() -> {})).isFalse();
        assertThat(loop.read(() -> "ran", "dropped")).isEqualTo("dropped");
        assertThat(loop.executor().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(thrownInTask.get()).isNull();
    }
}
