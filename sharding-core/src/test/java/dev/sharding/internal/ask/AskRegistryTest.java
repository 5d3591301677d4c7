package dev.sharding.internal.ask;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AskTimeoutException;
import dev.sharding.EntityUnreachableException;
import dev.sharding.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class AskRegistryTest {

    private final AskRegistry registry = new AskRegistry();

    private static PendingAsk<String> ask(long timeoutNanos) {
        return new PendingAsk<>(String.class, "t", "e", System.nanoTime() + timeoutNanos);
    }

    private static PendingAsk<String> ask() {
        return ask(TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    void aReplyFindsItsAskOnceByCorrelationId() {
        PendingAsk<String> a = ask();
        PendingAsk<String> b = ask();
        long ida = registry.register(a);
        long idb = registry.register(b);
        assertThat(ida).isNotEqualTo(idb);
        assertThat(registry.waiting()).isEqualTo(2);
        assertThat(registry.remove(idb)).isSameAs(b);
        assertThat(registry.remove(idb)).isNull();
        assertThat(registry.remove(ida)).isSameAs(a);
        assertThat(registry.remove(12345)).isNull();
        assertThat(registry.waiting()).isZero();
    }

    @Test
    void anIdWhoseSlotHoldsAWaitingAskGoesToTheOverflowAndIsFoundThere() {
        List<PendingAsk<String>> waiting = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < AskRegistry.SLOTS + 10; i++) {
            PendingAsk<String> a = ask();
            waiting.add(a);
            ids.add(registry.register(a));
        }
        assertThat(registry.waiting()).isEqualTo(AskRegistry.SLOTS + 10);
        for (int i = waiting.size() - 1; i >= 0; i--) {
            assertThat(registry.remove(ids.get(i))).isSameAs(waiting.get(i));
        }
        assertThat(registry.waiting()).isZero();
    }

    @Test
    void aSlotHeldByAnAskDoneOtherwiseIsTakenOver() {
        PendingAsk<String> cancelled = ask();
        long first = registry.register(cancelled);
        cancelled.future.cancel(false);
        for (int i = 1; i < AskRegistry.SLOTS; i++) {
            registry.remove(registry.register(ask()));
        }
        PendingAsk<String> next = ask();
        long id = registry.register(next); // same slot as the cancelled one
        assertThat(id & (AskRegistry.SLOTS - 1)).isEqualTo(first & (AskRegistry.SLOTS - 1));
        assertThat(registry.remove(first)).isNull();
        assertThat(registry.remove(id)).isSameAs(next);
    }

    @Test
    void answeredAsksAreNotKeptUntilTheirDeadline() {
        List<PendingAsk<String>> pending = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            PendingAsk<String> a = ask();
            registry.track(a);
            long id = registry.register(a);
            if (i % 10 == 0) {
                pending.add(a);
            } else {
                registry.remove(id).reply("done");
            }
        }
        assertThat(registry.keptForTimeout()).isEqualTo(1000);
        registry.sweep();
        assertThat(registry.keptForTimeout()).isEqualTo(pending.size());
        assertThat(pending).allSatisfy(a -> assertThat(a.isDone()).isFalse());
    }

    @Test
    void asksPastTheirDeadlineExpireAndLeaveTheTable() {
        PendingAsk<String> soon = ask(TimeUnit.MILLISECONDS.toNanos(50));
        PendingAsk<String> late = ask();
        for (PendingAsk<String> a : List.of(soon, late)) {
            registry.track(a);
            registry.register(a);
        }
        Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
            registry.sweep();
            return soon.isDone();
        });
        assertThat(soon.future).isCompletedExceptionally();
        assertThat(soon.future.handle((v, e) -> e).join())
                .isInstanceOf(AskTimeoutException.class)
                .hasMessageContaining("[t/e] timed out");
        assertThat(late.isDone()).isFalse();
        assertThat(registry.remove(soon.correlationId)).isNull();
        assertThat(registry.waiting()).isEqualTo(1);
    }

    @Test
    void asksSentToAGoneMemberFailAndOthersWait() {
        Member gone = new Member(1, 1, "gone");
        Member stays = new Member(2, 2, "stays");
        PendingAsk<String> toGone = ask();
        PendingAsk<String> toStays = ask();
        toGone.target = gone;
        toStays.target = stays;
        registry.register(toGone);
        registry.register(toStays);
        registry.failSentTo(Set.of(gone));
        assertThat(toGone.future
                        .handle((v, e) -> e instanceof CompletionException c ? c.getCause() : e)
                        .join())
                .isInstanceOf(EntityUnreachableException.class)
                .hasMessageContaining("left the cluster");
        assertThat(toStays.isDone()).isFalse();
        assertThat(registry.remove(toGone.correlationId)).isNull();
        assertThat(registry.remove(toStays.correlationId)).isSameAs(toStays);
    }

    @Test
    void failAllFailsTrackedAndRegisteredAsks() {
        PendingAsk<String> local = ask();
        PendingAsk<String> remote = ask();
        registry.track(local);
        registry.track(remote);
        registry.register(remote);
        registry.sweep(); // both now in a deadline bucket
        PendingAsk<String> fresh = ask();
        registry.track(fresh);
        registry.failAll(new IllegalStateException("stopping"));
        assertThat(List.of(local, remote, fresh))
                .allSatisfy(a -> assertThat(a.future).isCompletedExceptionally());
        assertThat(registry.waiting()).isZero();
    }
}
