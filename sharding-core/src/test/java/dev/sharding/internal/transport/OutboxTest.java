package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OutboxTest {

    /** Records what reaches the channel; can hold the sender thread in a send, as missing credits would. */
    static final class RecordingChannel implements Outbox.Channel {

        final List<byte[]> messages = Collections.synchronizedList(new ArrayList<>());

        final List<Boolean> outOfBand = Collections.synchronizedList(new ArrayList<>());

        volatile CountDownLatch gate = new CountDownLatch(0);

        final AtomicInteger inSend = new AtomicInteger();

        @Override
        public void send(Object destination, byte[] buffer, int offset, int length, boolean oob) {
            inSend.incrementAndGet();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inSend.decrementAndGet();
            }
            messages.add(java.util.Arrays.copyOfRange(buffer, offset, offset + length));
            outOfBand.add(oob);
        }

        /** Every frame, batches unpacked, in the order they reached the channel. */
        List<byte[]> frames() {
            List<byte[]> out = new ArrayList<>();
            synchronized (messages) {
                for (byte[] m : messages) {
                    if (m[0] == Outbox.BATCH_MAGIC) {
                        assertThat(Outbox.unpack(
                                        m,
                                        0,
                                        m.length,
                                        (b, o, n) -> out.add(java.util.Arrays.copyOfRange(b, o, o + n))))
                                .isNull();
                    } else {
                        out.add(m);
                    }
                }
            }
            return out;
        }
    }

    /** Wide limits: senders wait above 1 MiB, for half a minute at most. */
    private static final Outbox.Limits LIMITS = Outbox.Limits.of(4L << 20, TimeUnit.SECONDS.toNanos(30));

    private final RecordingChannel channel = new RecordingChannel();

    private OutboxPeer peer;

    @AfterEach
    void close() {
        channel.gate.countDown();
        if (peer != null) {
            peer.close();
        }
    }

    /** Sends on another thread: a frame after a pause goes out on the caller's thread, which the gate may hold. */
    private Thread sendInBackground(byte[] frame, boolean oob) {
        Thread t = new Thread(() -> peer.send(frame, 0, frame.length, oob, Outbox.Wait.BOUNDED, Outbox.Priority.DATA));
        t.start();
        return t;
    }

    private static byte[] frame(int sender, int seq, int size) {
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put((byte) 0x5D).putInt(sender).putInt(seq);
        return b.array();
    }

    @Test
    void aLoneFrameGoesOutUnchangedAndFramesQueuedBehindABlockedSendGoOutAsOneBatch() {
        peer = new OutboxPeer("test-send", channel, "b", LIMITS);
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 40), false);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 1);
        for (int i = 1; i <= 100; i++) {
            peer.send(frame(0, i, 40), 0, 40, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
        }
        channel.gate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.frames().size() == 101);

        assertThat(channel.messages).hasSize(2);
        assertThat(channel.messages.get(0)[0]).isEqualTo((byte) 0x5D);
        assertThat(channel.messages.get(1)[0]).isEqualTo(Outbox.BATCH_MAGIC);
        List<byte[]> frames = channel.frames();
        for (int i = 0; i <= 100; i++) {
            assertThat(ByteBuffer.wrap(frames.get(i)).getInt(5)).isEqualTo(i);
        }
        assertThat(peer.frames()).isEqualTo(101);
        assertThat(peer.messages()).isEqualTo(2);
    }

    @Test
    void aFrameAfterAPauseGoesOutOnTheCallersThread() throws Exception {
        List<Thread> senders = Collections.synchronizedList(new ArrayList<>());
        Outbox.Channel recordThread = (d, b, o, n, oob) -> senders.add(Thread.currentThread());
        peer = new OutboxPeer("test-send", recordThread, "b", LIMITS);
        for (int i = 0; i < 3; i++) {
            long pauseStart = System.nanoTime();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> System.nanoTime() - pauseStart > 2 * Outbox.INLINE_GAP_NANOS);
            peer.send(frame(0, i, 20), 0, 20, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
        }
        assertThat(senders).hasSize(3).containsOnly(Thread.currentThread());
    }

    @Test
    void keepsEachSendersOrderAndCutsBatchesAtTheSizeLimit() throws Exception {
        peer = new OutboxPeer("test-send", channel, "b", LIMITS);
        int senders = 4;
        int perSender = 20_000;
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            int sender = s;
            Thread t = new Thread(() -> {
                for (int i = 0; i < perSender; i++) {
                    int size = 9 + (i % 7 == 0 ? 300 : 20);
                    byte[] buf = new byte[size + 6];
                    System.arraycopy(frame(sender, i, size), 0, buf, 3, size); // a slice, as when forwarding
                    peer.send(buf, 3, size, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> peer.frames() == (long) senders * perSender);

        int[] next = new int[senders];
        for (byte[] f : channel.frames()) {
            ByteBuffer b = ByteBuffer.wrap(f);
            int sender = b.getInt(1);
            assertThat(b.getInt(5)).as("sender %d", sender).isEqualTo(next[sender]++);
        }
        assertThat(next).containsOnly(perSender);
        synchronized (channel.messages) {
            assertThat(channel.messages)
                    .allSatisfy(m -> assertThat(m.length).isLessThanOrEqualTo(Outbox.MAX_BATCH_BYTES));
        }
    }

    @Test
    void outOfBandFramesHaveTheirOwnQueueAndFlag() {
        peer = new OutboxPeer("test-send", channel, "b", LIMITS);
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 20), false);
        sendInBackground(frame(1, 0, 20), true);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 2);
        peer.send(frame(1, 1, 20), 0, 20, true, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
        peer.send(frame(0, 1, 20), 0, 20, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
        channel.gate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.frames() == 4);

        synchronized (channel.messages) {
            for (int i = 0; i < channel.messages.size(); i++) {
                byte[] m = channel.messages.get(i);
                List<byte[]> inside = new ArrayList<>();
                if (m[0] == Outbox.BATCH_MAGIC) {
                    Outbox.unpack(m, 0, m.length, (b, o, n) -> inside.add(java.util.Arrays.copyOfRange(b, o, o + n)));
                } else {
                    inside.add(m);
                }
                boolean oob = channel.outOfBand.get(i);
                assertThat(inside)
                        .allSatisfy(
                                f -> assertThat(ByteBuffer.wrap(f).getInt(1)).isEqualTo(oob ? 1 : 0));
            }
        }
    }

    @Test
    void aSenderWaitsWhileTheQueueIsOverItsLimitAndNothingIsDroppedWhenRoomComesInTime() throws Exception {
        peer = new OutboxPeer(
                "test-send", channel, "b", new Outbox.Limits(10_000, 40_000, 10_000, TimeUnit.SECONDS.toNanos(60)));
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 100), false);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 1);
        CountDownLatch done = new CountDownLatch(1);
        List<Boolean> accepted = Collections.synchronizedList(new ArrayList<>());
        Thread sender = new Thread(() -> {
            for (int i = 1; i <= 500; i++) {
                accepted.add(peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA));
            }
            done.countDown();
        });
        sender.start();
        // the queue fills past 10,000 bytes while the channel is held: the sender waits instead of dropping
        await().atMost(Duration.ofSeconds(10)).until(() -> sender.getState() == Thread.State.TIMED_WAITING);
        assertThat(done.getCount()).isEqualTo(1);
        assertThat(peer.queuedBytes()).isLessThanOrEqualTo(10_000);
        channel.gate.countDown();
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.frames().size() == 501);
        assertThat(accepted).containsOnly(true);
        List<byte[]> frames = channel.frames();
        for (int i = 0; i <= 500; i++) {
            assertThat(ByteBuffer.wrap(frames.get(i)).getInt(5)).isEqualTo(i);
        }
        assertThat(peer.refused()).isZero();
    }

    @Test
    void aSenderThatFindsNoRoomWithinTheLongestWaitIsRefusedAndNothingOfItsFrameIsQueued() throws Exception {
        peer = new OutboxPeer(
                "test-send",
                channel,
                "b",
                new Outbox.Limits(
                        1_000, 4_000, 1_000, TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(5)));
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 100), false);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 1);
        // the member reads nothing: the queue fills to the waiting threshold, and then every frame is refused
        List<Integer> accepted = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            if (peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA)) {
                accepted.add(i);
            }
        }
        assertThat(accepted).hasSizeLessThanOrEqualTo(10);
        assertThat(peer.refused()).isEqualTo(50 - accepted.size());
        assertThat(peer.queuedBytes()).isLessThanOrEqualTo(1_000 + 100);
        // taking nothing for longer than the longest wait, it gets no data frame at all, however small
        long stuckSince = System.nanoTime();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> peer.behindNanos(System.nanoTime()) > TimeUnit.MILLISECONDS.toNanos(5)
                        && System.nanoTime() - stuckSince > TimeUnit.MILLISECONDS.toNanos(5));
        assertThat(peer.send(frame(0, 98, 10), 0, 10, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA))
                .isFalse();
        assertThat(peer.send(frame(0, 98, 10), 0, 10, false, Outbox.Wait.NEVER, Outbox.Priority.DATA))
                .isFalse();
        assertThat(peer.send(frame(1, 98, 10), 0, 10, false, Outbox.Wait.NEVER, Outbox.Priority.CONTROL))
                .isTrue();

        // once it reads again, what was accepted goes out in order, and nothing refused does
        channel.gate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.frames().size() == 2 + accepted.size());
        List<byte[]> frames = channel.frames();
        for (int i = 0; i < accepted.size(); i++) {
            assertThat(ByteBuffer.wrap(frames.get(i + 1)).getInt(5)).isEqualTo(accepted.get(i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.queuedBytes() == 0);
        assertThat(peer.behindNanos(System.nanoTime())).isZero();
        assertThat(peer.send(frame(0, 99, 100), 0, 100, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA))
                .isTrue();
    }

    @Test
    void aPatientTellWaitsPastTheLongestWaitWhileTheMemberIsNotStuckAndGoesOutWhenRoomComes() throws Exception {
        peer = new OutboxPeer(
                "test-send",
                channel,
                "b",
                new Outbox.Limits(
                        1_000,
                        4_000,
                        1_000,
                        TimeUnit.MILLISECONDS.toNanos(5),
                        TimeUnit.SECONDS.toNanos(60),
                        TimeUnit.SECONDS.toNanos(60)));
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 100), false);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 1);
        for (int i = 1; i <= 10; i++) {
            assertThat(peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA))
                    .isTrue();
        }
        // the queue is at the waiting threshold: an application's tell waits for room
        List<Boolean> patient = Collections.synchronizedList(new ArrayList<>());
        Thread sender = new Thread(() ->
                patient.add(peer.send(frame(0, 11, 100), 0, 100, false, Outbox.Wait.PATIENT, Outbox.Priority.DATA)));
        sender.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> sender.getState() == Thread.State.TIMED_WAITING);
        // while it waits, a bounded sender (an entity's thread, an ask) waits its 5 ms and is refused
        assertThat(peer.send(frame(0, 99, 100), 0, 100, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA))
                .isFalse();
        assertThat(peer.refused()).isEqualTo(1);
        assertThat(patient).isEmpty();
        assertThat(sender.isAlive()).isTrue();
        // the member takes frames again: the patient tell goes out, after the ten before it
        channel.gate.countDown();
        sender.join(10_000);
        assertThat(patient).containsExactly(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.frames().size() == 12);
        List<byte[]> frames = channel.frames();
        for (int i = 0; i <= 11; i++) {
            assertThat(ByteBuffer.wrap(frames.get(i)).getInt(5)).isEqualTo(i);
        }
        assertThat(peer.refused()).isEqualTo(1);
    }

    @Test
    void aPatientTellIsRefusedOnceTheMemberHasTakenNothingForTheStuckTime() throws Exception {
        peer = new OutboxPeer(
                "test-send",
                channel,
                "b",
                new Outbox.Limits(
                        1_000,
                        4_000,
                        1_000,
                        TimeUnit.MILLISECONDS.toNanos(5),
                        TimeUnit.MILLISECONDS.toNanos(300),
                        TimeUnit.SECONDS.toNanos(60)));
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 100), false);
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> channel.inSend.get() == 1);
        int accepted = 0;
        for (int i = 1; i <= 10; i++) {
            if (peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA)) {
                accepted++;
            }
        }
        // the member takes nothing: the patient tell is refused once that has lasted the stuck time, long before
        // its longest patient wait (a minute)
        assertThat(peer.send(frame(0, 11, 100), 0, 100, false, Outbox.Wait.PATIENT, Outbox.Priority.DATA))
                .isFalse();
        assertThat(peer.behindNanos(System.nanoTime())).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(300));
        channel.gate.countDown();
        int sent = 1 + accepted;
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.frames().size() == sent);
    }

    @Test
    void aRegionsFlushIsQueuedBeyondTheBoundAndGoesOutInOrder() {
        peer = new OutboxPeer(
                "test-send", channel, "b", new Outbox.Limits(1_000, 4_000, 1_000, TimeUnit.SECONDS.toNanos(60)));
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 100), false);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 1);
        // the control thread sends on 200 buffered messages (20,000 bytes) toward a member whose bound is 4,000: a
        // handoff's buffer is bounded by the region, and nothing of it is refused here
        for (int i = 1; i <= 200; i++) {
            assertThat(peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.FLUSH, Outbox.Priority.DATA))
                    .isTrue();
        }
        assertThat(peer.queuedBytes()).isEqualTo(20_000);
        assertThat(peer.refused()).isZero();
        // a thread that never waits is still refused at the bound meanwhile
        assertThat(peer.send(frame(0, 999, 100), 0, 100, false, Outbox.Wait.NEVER, Outbox.Priority.DATA))
                .isFalse();
        channel.gate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.queuedBytes() == 0);
        List<byte[]> frames = channel.frames();
        assertThat(frames).hasSize(201);
        for (int i = 0; i <= 200; i++) {
            assertThat(ByteBuffer.wrap(frames.get(i)).getInt(5)).isEqualTo(i);
        }
    }

    @Test
    void threadsThatNeverWaitAreRefusedAtTheBoundControlFramesHaveAReserveAndMemoryStaysBounded() {
        peer = new OutboxPeer(
                "test-send", channel, "b", new Outbox.Limits(1_000, 4_000, 1_000, TimeUnit.SECONDS.toNanos(60)));
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 100), false);
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 1);
        // a delivering thread forwarding a flood toward a member that reads nothing: a million frames, 100 MB
        int acceptedData = 0;
        for (int i = 1; i <= 1_000_000; i++) {
            if (peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.NEVER, Outbox.Priority.DATA)) {
                acceptedData++;
            }
        }
        assertThat(acceptedData).isBetween(39, 40);
        assertThat(peer.queuedBytes()).isLessThanOrEqualTo(4_000 + 100);
        assertThat(peer.refused()).isEqualTo(1_000_000 - acceptedData);
        // a lease renewal still finds room, in the reserve; beyond the reserve, it is refused too
        int acceptedControl = 0;
        for (int i = 0; i < 100; i++) {
            if (peer.send(frame(1, i, 100), 0, 100, false, Outbox.Wait.NEVER, Outbox.Priority.CONTROL)) {
                acceptedControl++;
            }
        }
        assertThat(acceptedControl).isBetween(9, 11);
        assertThat(peer.queuedBytes()).isLessThanOrEqualTo(5_000 + 100);
        channel.gate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.queuedBytes() == 0);
        assertThat(channel.frames()).hasSize(1 + acceptedData + acceptedControl);
    }

    @Test
    void aLoneFrameIsNotSentOnTheCallersThreadWhenTheChannelSaysItWouldWait() throws Exception {
        List<Thread> senders = Collections.synchronizedList(new ArrayList<>());
        Outbox.Channel noCredits = new Outbox.Channel() {
            @Override
            public void send(Object d, byte[] b, int o, int n, boolean oob) {
                senders.add(Thread.currentThread());
            }

            @Override
            public boolean ready(Object destination, int length) {
                return false;
            }
        };
        peer = new OutboxPeer("test-send", noCredits, "b", LIMITS);
        long pauseStart = System.nanoTime();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> System.nanoTime() - pauseStart > 2 * Outbox.INLINE_GAP_NANOS);
        assertThat(peer.send(frame(0, 0, 20), 0, 20, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA))
                .isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> senders.size() == 1);
        assertThat(senders).doesNotContain(Thread.currentThread());
    }

    @Test
    void awaitSentReturnsOnceEveryQueuedFrameReachedTheChannel() throws Exception {
        peer = new OutboxPeer("test-send", channel, "b", LIMITS);
        channel.gate = new CountDownLatch(1);
        sendInBackground(frame(0, 0, 30), true);
        sendInBackground(frame(0, 1, 30), false); // each ordering has its own queue: hold both
        await().atMost(Duration.ofSeconds(10)).until(() -> channel.inSend.get() == 2);
        for (int i = 2; i < 50; i++) {
            peer.send(frame(0, i, 30), 0, 30, i % 2 == 0, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
        }
        assertThat(peer.awaitSent(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50)))
                .isFalse();
        channel.gate.countDown();
        assertThat(peer.awaitSent(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)))
                .isTrue();
        assertThat(channel.frames()).hasSize(50);
    }

    @Test
    void aQueuedFrameNeverGoesOutOnTheCallersThreadNorMakesItWaitForRoom() throws Exception {
        List<Thread> senders = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch gate = new CountDownLatch(1);
        Outbox.Channel held = (d, b, o, n, oob) -> {
            senders.add(Thread.currentThread());
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        peer = new OutboxPeer("test-send", held, "b", LIMITS);
        // after a pause, on an idle queue: an unqueued frame would go out here, on this thread
        long pauseStart = System.nanoTime();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> System.nanoTime() - pauseStart > 2 * Outbox.INLINE_GAP_NANOS);
        peer.send(frame(0, 0, 100), 0, 100, false, Outbox.Wait.NEVER, Outbox.Priority.DATA);
        await().atMost(Duration.ofSeconds(10)).until(() -> senders.size() == 1);
        // the channel is held, and the queue goes past the waiting threshold: the caller returns every time
        for (int i = 1; i <= 20_000; i++) {
            assertThat(peer.send(frame(0, i, 100), 0, 100, false, Outbox.Wait.NEVER, Outbox.Priority.DATA))
                    .isTrue();
        }
        assertThat(senders).doesNotContain(Thread.currentThread());
        gate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> peer.frames() == 20_001);
        assertThat(senders).doesNotContain(Thread.currentThread());
    }

    @Test
    void aClosedPeerSendsNothingMore() {
        peer = new OutboxPeer("test-send", channel, "b", LIMITS);
        peer.close();
        peer.send(frame(0, 0, 20), 0, 20, false, Outbox.Wait.BOUNDED, Outbox.Priority.DATA);
        assertThat(channel.messages).isEmpty();
    }

    @Test
    void aMalformedBatchDeliversItsWholeFramesAndSaysWhyTheRestWasDropped() {
        byte[] one = frame(0, 1, 12);
        byte[] batch = new byte[1 + 1 + 12 + 1 + 3];
        batch[0] = Outbox.BATCH_MAGIC;
        batch[1] = 12;
        System.arraycopy(one, 0, batch, 2, 12);
        batch[14] = 100; // claims 100 bytes, 2 left
        List<byte[]> got = new ArrayList<>();
        String why =
                Outbox.unpack(batch, 0, batch.length, (b, o, n) -> got.add(java.util.Arrays.copyOfRange(b, o, o + n)));
        assertThat(got).containsExactly(one);
        assertThat(why).contains("beyond the batch");

        byte[] truncated = {Outbox.BATCH_MAGIC, (byte) 0x80, (byte) 0x80};
        assertThat(Outbox.unpack(truncated, 0, truncated.length, (b, o, n) -> got.add(b)))
                .contains("truncated");
        byte[] zero = {Outbox.BATCH_MAGIC, 0};
        assertThat(Outbox.unpack(zero, 0, zero.length, (b, o, n) -> got.add(b))).contains("frame length 0");
        assertThat(got).hasSize(1);
    }

    @Test
    void varintsRoundTrip() {
        for (int v : new int[] {1, 127, 128, 16_383, 16_384, 32_768, Integer.MAX_VALUE}) {
            byte[] b = new byte[1 + Outbox.varintSize(v)];
            b[0] = Outbox.BATCH_MAGIC;
            assertThat(Outbox.writeVarint(b, 1, v)).isEqualTo(b.length);
            // a varint claiming more than is there is reported, with the value it read
            assertThat(Outbox.unpack(b, 0, b.length, (x, o, n) -> {})).contains("frame length " + v + " ");
        }
    }
}
