package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.protocols.UnicastHeader3;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The sealing of the cluster guard on its own: what is opened is exactly what was sealed, whatever came before it
 * on the thread (the buffers are reused), and anything altered, replayed or sealed under another key is refused.
 */
class GuardCipherTest {

    private static final short GUARD_ID = 1750;

    private static final short UNICAST_ID = 75;

    private final byte[] key = randomBytes(32);

    private final Address from = UUID.randomUUID();

    private final Address to = UUID.randomUUID();

    @Test
    void opensExactlyWhatWasSealedWithItsHeaders() throws Exception {
        GuardCipher sender = new GuardCipher(key);
        GuardCipher receiver = new GuardCipher(key);
        byte[] payload = randomBytes(100);
        Message msg = message(payload, 7);

        Message sealed = sender.seal(msg, GUARD_ID);
        assertThat(Arrays.equals(sealed.getArray(), sealed.getOffset(), sealed.getOffset() + 100, payload, 0, 100))
                .as("the payload does not travel in clear")
                .isFalse();
        Message opened = receiver.open(sealed.getHeader(GUARD_ID), sealed);

        assertThat(opened).isNotNull().isNotSameAs(GuardCipher.REPLAYED);
        assertThat(opened.getSrc()).isEqualTo(from);
        assertThat(opened.getDest()).isEqualTo(to);
        assertThat(payloadOf(opened)).isEqualTo(payload);
        UnicastHeader3 header = opened.getHeader(UNICAST_ID);
        assertThat(header.seqno()).isEqualTo(7);
    }

    @Test
    void messagesOfEverySizeInTurnOpenIntactWhileTheThreadsBuffersAreReused() throws Exception {
        GuardCipher sender = new GuardCipher(key);
        GuardCipher receiver = new GuardCipher(key);
        int[] sizes = {0, 10, 1_000, 70_000, 50, 200_000, 3, 64 * 1024 - 40, 64 * 1024 + 40, 1};
        Message[] opened = new Message[sizes.length];
        byte[][] payloads = new byte[sizes.length][];
        for (int i = 0; i < sizes.length; i++) {
            payloads[i] = randomBytes(sizes[i]);
            Message sealed = sender.seal(message(payloads[i], i + 1), GUARD_ID);
            opened[i] = receiver.open(sealed.getHeader(GUARD_ID), sealed);
        }
        // checked only after all were opened: an opened message must not share the thread's buffer
        for (int i = 0; i < sizes.length; i++) {
            assertThat(opened[i]).as("size %d", sizes[i]).isNotNull().isNotSameAs(GuardCipher.REPLAYED);
            assertThat(payloadOf(opened[i])).as("size %d", sizes[i]).isEqualTo(payloads[i]);
        }
    }

    @Test
    void aSealedMessageKeepsItsBytesAfterTheSenderSealsMore() throws Exception {
        GuardCipher sender = new GuardCipher(key);
        GuardCipher receiver = new GuardCipher(key);
        Message first = sender.seal(message(randomBytes(500), 1), GUARD_ID);
        byte[] firstBytes =
                Arrays.copyOfRange(first.getArray(), first.getOffset(), first.getOffset() + first.getLength());
        sender.seal(message(randomBytes(500), 2), GUARD_ID);
        sender.seal(message(randomBytes(100_000), 3), GUARD_ID);

        assertThat(Arrays.copyOfRange(first.getArray(), first.getOffset(), first.getOffset() + first.getLength()))
                .isEqualTo(firstBytes);
        assertThat(receiver.open(first.getHeader(GUARD_ID), first)).isNotNull().isNotSameAs(GuardCipher.REPLAYED);
    }

    @Test
    void anAlteredByteAnotherKeyOrATruncatedMessageIsRefused() throws Exception {
        GuardCipher sender = new GuardCipher(key);
        Message sealed = sender.seal(message(randomBytes(200), 1), GUARD_ID);
        GuardHeader header = sealed.getHeader(GUARD_ID);

        byte[] altered = sealed.getArray().clone();
        altered[sealed.getOffset() + 17] ^= 1;
        assertThat(new GuardCipher(key).open(header, new BytesMessage(to, altered)))
                .isNull();

        assertThat(new GuardCipher(randomBytes(32)).open(header, sealed)).isNull();

        byte[] truncated = Arrays.copyOf(sealed.getArray(), 10);
        assertThat(new GuardCipher(key).open(header, new BytesMessage(to, truncated)))
                .isNull();

        // a refused message leaves the receiver able to open the genuine one
        GuardCipher receiver = new GuardCipher(key);
        assertThat(receiver.open(header, new BytesMessage(to, altered))).isNull();
        assertThat(receiver.open(header, sealed)).isNotNull().isNotSameAs(GuardCipher.REPLAYED);
    }

    @Test
    void theSameSealedMessageTwiceIsAReplay() throws Exception {
        GuardCipher sender = new GuardCipher(key);
        GuardCipher receiver = new GuardCipher(key);
        Message sealed = sender.seal(message(randomBytes(50), 1), GUARD_ID);

        assertThat(receiver.open(sealed.getHeader(GUARD_ID), sealed)).isNotSameAs(GuardCipher.REPLAYED);
        assertThat(receiver.open(sealed.getHeader(GUARD_ID), sealed)).isSameAs(GuardCipher.REPLAYED);
    }

    @Test
    void aFrameSealedForAnotherNodeIsRefusedThereAndLeavesTheSendersWindowAlone() throws Exception {
        Address other = UUID.randomUUID();
        GuardCipher sender = new GuardCipher(key);
        GuardCipher receiver = new GuardCipher(key);
        Message toReceiver = sender.seal(message(randomBytes(20), 1), GUARD_ID);
        Message toOther = null;
        // far enough ahead of the receiver's frame to push it out of the window, were it counted
        for (int i = 0; i <= ReplayWindow.SIZE; i++) {
            toOther = sender.seal(new BytesMessage(other, new byte[0]).setSrc(from), GUARD_ID);
        }
        assertThat(receiver.open(toOther.getHeader(GUARD_ID), toOther, to))
                .as("a copy of a frame for another node")
                .isSameAs(GuardCipher.REPLAYED);
        assertThat(receiver.open(toReceiver.getHeader(GUARD_ID), toReceiver, to))
                .as("the receiver's own frame, older by more than the window")
                .isNotNull()
                .isNotSameAs(GuardCipher.REPLAYED);
        Message toAll = sender.seal(new BytesMessage(null, new byte[0]).setSrc(from), GUARD_ID);
        assertThat(receiver.open(toAll.getHeader(GUARD_ID), toAll, to)).isNotSameAs(GuardCipher.REPLAYED);
    }

    @Test
    void aMemberThatLeftIsHeardAgainOnlyAboveWhatWasSeenFromIt() throws Exception {
        GuardCipher sender = new GuardCipher(key);
        GuardCipher receiver = new GuardCipher(key);
        Message first = sender.seal(message(randomBytes(20), 1), GUARD_ID);
        Message second = sender.seal(message(randomBytes(20), 2), GUARD_ID);
        assertThat(receiver.open(second.getHeader(GUARD_ID), second, to)).isNotSameAs(GuardCipher.REPLAYED);

        receiver.viewChanged(org.jgroups.View.create(to, 2, to)); // the sender left
        assertThat(receiver.open(first.getHeader(GUARD_ID), first, to))
                .as("a frame from before it left, never opened here")
                .isSameAs(GuardCipher.REPLAYED);
        assertThat(receiver.open(second.getHeader(GUARD_ID), second, to))
                .as("a frame opened before it left")
                .isSameAs(GuardCipher.REPLAYED);
        Message back = sender.seal(message(randomBytes(20), 3), GUARD_ID);
        assertThat(receiver.open(back.getHeader(GUARD_ID), back, to))
                .as("the same process merging back")
                .isNotNull()
                .isNotSameAs(GuardCipher.REPLAYED);
    }

    private Message message(byte[] payload, long seqno) {
        return new BytesMessage(to, payload)
                .setSrc(from)
                .putHeader(UNICAST_ID, UnicastHeader3.createDataHeader(seqno, (short) 1, false));
    }

    private static byte[] payloadOf(Message msg) {
        return msg.getLength() == 0
                ? new byte[0]
                : Arrays.copyOfRange(msg.getArray(), msg.getOffset(), msg.getOffset() + msg.getLength());
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
