package dev.sharding.internal.transport;

import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.UFC;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel as the members' queues use it ({@link Outbox.Channel}): a frame goes out as one {@link BytesMessage}
 * (no JGroups marshalling of our objects), and a lone frame may go out on its caller's thread only while the member
 * has the flow-control credits a member that keeps up has ({@link JGroupsTransport#inlineSendCredits}).
 *
 * <p>Thread-safe: every sending thread uses it.
 */
final class ChannelSender implements Outbox.Channel {

    private static final Logger log = LoggerFactory.getLogger(ChannelSender.class);

    /** Set once when the transport starts, before any frame is sent. */
    private @Nullable JChannel channel;

    private volatile @Nullable UFC ufc;

    /**
     * The credits a member must have for a lone frame to go out on its caller's thread: fewer than a member that keeps
     * up ever has, more than one that has stopped topping them up keeps for long.
     */
    private volatile long readyCredits;

    /**
     * The channel frames go out on, before it connects.
     *
     * @param channel the channel
     */
    void channel(JChannel channel) {
        this.channel = channel;
    }

    /**
     * The channel's unicast flow control, once connected: from then on a lone frame waits for credits.
     *
     * @param ufc the protocol
     * @param readyCredits the credits a member must have for a lone frame to go out on its caller's thread
     */
    void flowControl(UFC ufc, long readyCredits) {
        this.readyCredits = readyCredits;
        this.ufc = ufc;
    }

    @Override
    public void send(Object destination, byte[] buffer, int offset, int length, boolean outOfBand) {
        JChannel ch = channel;
        if (ch == null) {
            return;
        }
        Message msg = new BytesMessage((Address) destination, buffer, offset, length);
        if (outOfBand) {
            msg.setFlag(Message.Flag.OOB);
        }
        try {
            ch.send(msg);
        } catch (Exception e) {
            log.debug("Dropped a frame to {}: {}", destination, e.toString());
        }
    }

    @Override
    public boolean ready(Object destination, int length) {
        UFC u = ufc;
        return u == null || u.getSenderCreditsFor((Address) destination) >= Math.max(length, readyCredits);
    }
}
