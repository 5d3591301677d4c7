package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeliveryRelayTest {

    private final Address slow = UUID.randomUUID();

    private final Address other = UUID.randomUUID();

    private final CountDownLatch slowSocket = new CountDownLatch(1);

    /** What reached the transport: the message's first byte and the thread that wrote it. */
    private final List<String> written = Collections.synchronizedList(new ArrayList<>());

    private final List<Thread> writers = Collections.synchronizedList(new ArrayList<>());

    private final DeliveryRelay relay = new DeliveryRelay();

    /** Below the relay: a transport whose socket to {@code slow} is full until the latch opens. */
    private final Protocol transport = new Protocol() {
        @Override
        public Object down(Message msg) {
            if (slow.equals(msg.getDest())) {
                try {
                    slowSocket.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            written.add(slow.equals(msg.getDest()) ? "slow-" + msg.getArray()[0] : "other-" + msg.getArray()[0]);
            writers.add(Thread.currentThread());
            return null;
        }
    };

    /** Above the relay: a protocol that answers every message it gets with what the test says. */
    private final List<Message> answers = new ArrayList<>();

    private final Protocol above = new Protocol() {
        @Override
        public Object up(Message msg) {
            for (Message a : answers) {
                relay.down(a);
            }
            return null;
        }
    };

    DeliveryRelayTest() throws Exception {
        relay.setDownProtocol(transport);
        relay.setUpProtocol(above);
        relay.start();
    }

    @AfterEach
    void stop() {
        slowSocket.countDown();
        relay.stop();
    }

    private static Message to(Address dest, int tag) {
        return new BytesMessage(dest, new byte[] {(byte) tag});
    }

    @Test
    void whatADeliveringThreadSendsIsWrittenByARelayInOrderAndAFullSocketHoldsUpOnlyItsOwnLane() {
        answers.add(to(slow, 1));
        answers.add(to(slow, 2));
        answers.add(to(other, 3));
        answers.add(to(slow, 4));
        answers.add(to(other, 5));

        // the delivery returns although the socket to one destination stays full
        Thread reader = new Thread(() -> relay.up(to(null, 0)), "reader");
        reader.start();
        await("the delivery returned").atMost(Duration.ofSeconds(10)).until(() -> !reader.isAlive());
        await().atMost(Duration.ofSeconds(10)).until(() -> written.size() == 2);
        assertThat(written).containsExactly("other-3", "other-5");

        slowSocket.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> written.size() == 5);
        assertThat(written.subList(2, 5)).containsExactly("slow-1", "slow-2", "slow-4");
        assertThat(writers).doesNotContain(reader);
        assertThat(relay.relayed()).isEqualTo(5);
    }

    @Test
    void aLaneHoldsAtMostItsBoundTheRestIsDroppedAndCountedAndOtherLanesGoOn() throws Exception {
        DeliveryRelay bounded = new DeliveryRelay(64 * 1024);
        bounded.setDownProtocol(transport);
        bounded.setUpProtocol(new Protocol() {
            @Override
            public Object up(Message msg) {
                // a delivery that answers with a thousand retransmissions of 1 KiB to a member that reads nothing
                for (int i = 0; i < 1000; i++) {
                    bounded.down(new BytesMessage(slow, new byte[1024]));
                }
                bounded.down(to(other, 6));
                return null;
            }
        });
        bounded.start();
        try {
            Thread reader = new Thread(() -> bounded.up(to(null, 0)), "reader");
            reader.start();
            await("the delivery returned").atMost(Duration.ofSeconds(10)).until(() -> !reader.isAlive());
            await().atMost(Duration.ofSeconds(10)).until(() -> written.contains("other-6"));
            assertThat(bounded.maxLaneBytes()).isLessThanOrEqualTo(64 * 1024);
            long dropped = bounded.dropped();
            assertThat(dropped).isBetween(1000L - 64, 1000L - 55);

            slowSocket.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> written.size() == 1 + 1000 - dropped);
            await().atMost(Duration.ofSeconds(10)).until(() -> bounded.maxLaneBytes() == 0);
        } finally {
            bounded.stop();
        }
    }

    @Test
    void aThreadThatIsNotDeliveringWritesItself() {
        slowSocket.countDown();
        relay.down(to(other, 7));
        assertThat(written).containsExactly("other-7");
        assertThat(writers).containsExactly(Thread.currentThread());
        assertThat(relay.relayed()).isZero();
    }

    @Test
    void aThreadIsDeliveringOnlyWhileItDelivers() throws Exception {
        List<Boolean> seen = new ArrayList<>();
        Protocol probe = new Protocol() {
            @Override
            public Object up(Message msg) {
                seen.add(SendingThreads.delivering());
                seen.add(SendingThreads.mayWait());
                return null;
            }
        };
        relay.setUpProtocol(probe);
        assertThat(SendingThreads.delivering()).isFalse();
        relay.up(to(null, 0));
        assertThat(seen).containsExactly(true, false);
        assertThat(SendingThreads.delivering()).isFalse();
        assertThat(SendingThreads.mayWait()).isTrue();

        // a delivery that throws leaves the thread as it was
        relay.setUpProtocol(new Protocol() {
            @Override
            public Object up(Message msg) {
                throw new IllegalStateException("boom");
            }
        });
        try {
            relay.up(to(null, 0));
        } catch (IllegalStateException expected) {
            // as thrown
        }
        assertThat(SendingThreads.delivering()).isFalse();
    }

    @Test
    void afterStopNothingIsRelayedAnyMore() throws Exception {
        relay.stop();
        answers.add(to(other, 9));
        relay.up(to(null, 0));
        // stopped: the delivering thread's message goes down itself, as the stack below is stopping too
        assertThat(written).containsExactly("other-9");
        assertThat(relay.relayed()).isZero();
    }
}
