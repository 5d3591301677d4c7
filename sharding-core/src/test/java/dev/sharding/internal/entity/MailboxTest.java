package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.MailboxLink.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The mailbox's queue, which many senders put to and one run at a time takes from: every delivery put is handled once
 * unless its sender took it back, each sender's deliveries in the order it put them, one run at a time; the count
 * against the bound comes back to zero; an idle mailbox rests on itself and takes deliveries again.
 */
class MailboxTest {

    /** A message: who sent it and its place in that sender's sequence. */
    private record Sent(int sender, int seq) {}

    /** A mailbox that records what it handles, on a pool of threads, and checks that one run goes at a time. */
    private static final class Recording extends Mailbox {

        final ExecutorService pool;

        final ConcurrentLinkedQueue<Sent> handled = new ConcurrentLinkedQueue<>();

        final AtomicInteger running = new AtomicInteger();

        volatile boolean overlapped;

        /** Deliveries the next runs suspend on once each: the test resumes them. */
        volatile boolean suspendSome;

        final ConcurrentLinkedQueue<Delivery> suspended = new ConcurrentLinkedQueue<>();

        Recording(ExecutorService pool) {
            this.pool = pool;
        }

        @Override
        ExecutorService executor() {
            return pool;
        }

        @Override
        boolean process(Delivery d) {
            if (running.incrementAndGet() != 1) {
                overlapped = true;
            }
            try {
                if (d.message() instanceof Sent sent) {
                    if (suspendSome && sent.seq() % 7 == 3 && !suspended.contains(d)) {
                        suspended.add(d);
                        hold(d);
                        pool.execute(
                                () -> { // a completion on another thread, once this handler has returned
                                    while (running.get() != 0) {
                                        Thread.onSpinWait();
                                    }
                                    resumeAfterCompletion(false);
                                });
                        return false;
                    }
                    handled.add(sent);
                }
                return true;
            } finally {
                running.decrementAndGet();
            }
        }

        @Override
        boolean retireWhenIdle() {
            return false;
        }

        /** Counts, puts and schedules, as a sender does. */
        Node send(Object message) {
            Delivery d = new Delivery(message, ReplySink.TELL);
            assertThat(count(d, Integer.MAX_VALUE)).isTrue();
            Node node = put(d);
            schedule();
            return node;
        }
    }

    private final ExecutorService pool = Executors.newFixedThreadPool(3);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void manySendersAndTakeBacks() throws Exception {
        for (boolean suspend : new boolean[] {false, true}) {
            Recording box = new Recording(pool);
            box.suspendSome = suspend;
            int senders = 4;
            int each = 20_000;
            List<List<Integer>> takenBack = new ArrayList<>();
            CyclicBarrier start = new CyclicBarrier(senders);
            List<Thread> threads = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                int sender = s;
                List<Integer> back = new ArrayList<>();
                takenBack.add(back);
                Thread t = new Thread(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < each; i++) {
                        Node node = box.send(new Sent(sender, i));
                        if (random.nextInt(10) == 0 && box.takeBack(node)) {
                            back.add(i);
                        }
                        if (random.nextInt(1000) == 0) {
                            Thread.yield(); // let the mailbox go idle now and then
                        }
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
            int expected =
                    senders * each - takenBack.stream().mapToInt(List::size).sum();
            awaitHandled(box, expected);

            assertThat(box.overlapped).as("two runs at once").isFalse();
            List<List<Integer>> bySender = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                bySender.add(new ArrayList<>());
            }
            for (Sent sent : box.handled) {
                bySender.get(sent.sender()).add(sent.seq());
            }
            for (int s = 0; s < senders; s++) {
                List<Integer> seqs = bySender.get(s);
                assertThat(seqs)
                        .as("sender %d in order, once each", s)
                        .isSorted()
                        .doesNotHaveDuplicates();
                assertThat(seqs).as("taken back, never handled").doesNotContainAnyElementsOf(takenBack.get(s));
                assertThat(seqs.size() + takenBack.get(s).size()).isEqualTo(each);
            }
            awaitRested(box);
            // the count came back to zero: a bound of one takes one message again
            Delivery one = new Delivery(new Sent(9, 0), ReplySink.TELL);
            assertThat(box.count(one, 1)).isTrue();
            assertThat(box.count(one, 1)).isFalse();
        }
    }

    @Test
    void anIdleMailboxRestsOnItselfAndTakesDeliveriesAgain() throws Exception {
        Recording box = new Recording(pool);
        for (int round = 0; round < 200; round++) {
            box.send(new Sent(0, 2 * round));
            box.send(new Sent(0, 2 * round + 1));
            awaitHandled(box, 2 * round + 2);
            awaitRested(box);
        }
        assertThat(box.handled).extracting(Sent::seq).isSorted().hasSize(400);
    }

    @Test
    void aDeliveryTakenBackAfterItsRunTookItStaysTaken() throws Exception {
        Recording box = new Recording(pool);
        Node node = box.send(new Sent(0, 0));
        awaitHandled(box, 1);
        assertThat(box.takeBack(node)).isFalse();
        assertThat(box.handled).hasSize(1);
    }

    @Test
    void aQueuedStopIsSeenBehindOtherDeliveries() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Boolean> seen = new ArrayList<>();
        Mailbox box = new Mailbox() {
            @Override
            ExecutorService executor() {
                return pool;
            }

            @Override
            boolean process(Delivery d) {
                if ("first".equals(d.message())) {
                    blocked.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    synchronized (seen) {
                        seen.add(stopQueued());
                    }
                }
                return true;
            }

            @Override
            boolean retireWhenIdle() {
                return false;
            }
        };
        sendTo(box, "first");
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        sendTo(box, "second");
        Node stop = sendTo(box, new Signal.Stop(() -> {}));
        sendTo(box, "third");
        release.countDown();
        awaitRested(box);
        synchronized (seen) {
            assertThat(seen).containsExactly(true);
        }
        assertThat(box.takeBack(stop)).isFalse();
    }

    private static Node sendTo(Mailbox box, Object message) {
        Delivery d = new Delivery(message, ReplySink.TELL);
        assertThat(box.count(d, 100)).isTrue();
        Node node = box.put(d);
        box.schedule();
        return node;
    }

    private static void awaitHandled(Recording box, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (box.handled.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(box.handled).hasSize(n);
    }

    /** Waits until the mailbox rests on itself with nothing queued. */
    private static void awaitRested(Mailbox box) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (box.queueEmpty()) {
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the mailbox did not rest");
    }
}
