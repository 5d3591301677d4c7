package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The guard of a cluster with a secret refuses unsealed messages and tells their senders, at most once a second each,
 * and for at most 4,096 senders of the last second: a flood of forged senders neither grows its memory nor stops the
 * notices to the senders that come after it.
 */
class RefusalNoticeTest {

    /** Records what the guard sends down. */
    private static final class Below extends Protocol {
        final List<Message> sent = new CopyOnWriteArrayList<>();

        @Override
        public Object down(Message msg) {
            sent.add(msg);
            return null;
        }
    }

    private final Below below = new Below();

    /** The guard's clock: the flood takes no time on it, however loaded the machine. */
    private final AtomicLong nanos = new AtomicLong();

    private final ClusterGuard guard = guard();

    private ClusterGuard guard() {
        ClusterGuard g =
                new ClusterGuard("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8), "c", nanos::get);
        g.setDownProtocol(below);
        g.setUpProtocol(new Protocol() {
            @Override
            public Object up(Message msg) {
                throw new AssertionError("an unsealed message was passed up");
            }
        });
        return g;
    }

    private long noticesTo(Address sender) {
        return below.sent.stream().filter(m -> sender.equals(m.getDest())).count();
    }

    private void unsealedFrom(Address sender) {
        guard.up(new BytesMessage(null, new byte[] {1, 2, 3}).setSrc(sender));
    }

    @Test
    void aFloodOfSendersDoesNotStopTheNoticesForGood() {
        for (int i = 0; i < 4096; i++) {
            unsealedFrom(UUID.randomUUID());
        }
        assertThat(below.sent).as("one notice each").hasSize(4096);
        Address late = UUID.randomUUID();
        unsealedFrom(late);
        assertThat(noticesTo(late)).as("no room within the second of the flood").isZero();
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        unsealedFrom(late);
        assertThat(noticesTo(late)).as("still within the flood's second").isZero();
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        unsealedFrom(late);
        assertThat(noticesTo(late))
                .as("a notice to a sender after the flood's second")
                .isEqualTo(1);
        assertThat(guard.refusedCount()).isGreaterThan(4096);
    }

    @Test
    void oneSenderGetsAtMostOneNoticeASecond() {
        Address sender = UUID.randomUUID();
        for (int i = 0; i < 100; i++) {
            unsealedFrom(sender);
        }
        assertThat(noticesTo(sender)).isEqualTo(1);
    }
}
