package dev.sharding.internal.transport;

import dev.sharding.Member;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.util.MessageBatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the channel delivers, handed to the transport's {@link Transport.Listener}: each frame with its sender as a
 * {@link Member} (a batch split into its frames, {@link BatchFormat}), and each view as the list of its members. A
 * frame from a member still named by its UUID looks its name up again; once JGroups knows it, the view is published
 * again with it.
 *
 * <p>Runs on the channel's delivering threads; never blocks them.
 */
final class ChannelReceiver implements Receiver {

    private static final Logger log = LoggerFactory.getLogger(ChannelReceiver.class);

    private final MemberNames names;

    private final Transport.Listener listener;

    /** Told of each view before the listener, to forget what went to the members gone. */
    private final Consumer<View> viewInstalled;

    /** The last view, to publish again when a member's name becomes known. */
    private volatile @Nullable View lastView;

    private final AtomicLong malformedBatches = new AtomicLong();

    /**
     * @param names the members by address
     * @param listener gets the frames and views
     * @param viewInstalled told of each view before the listener
     */
    ChannelReceiver(MemberNames names, Transport.Listener listener, Consumer<View> viewInstalled) {
        this.names = names;
        this.listener = listener;
        this.viewInstalled = viewInstalled;
    }

    @Override
    public void receive(Message msg) {
        Address src = msg.getSrc();
        if (src == null) {
            return;
        }
        if (names.anyUnnamed()) {
            learnName(src);
        }
        deliver(names.member(src), msg.getArray(), msg.getOffset(), msg.getLength());
    }

    @Override
    public void receive(MessageBatch batch) {
        if (names.anyUnnamed()) {
            learnName(batch.sender());
        }
        Member from = names.member(batch.sender());
        for (Message msg : batch) {
            deliver(from, msg.getArray(), msg.getOffset(), msg.getLength());
        }
    }

    /**
     * Publishes a view newer than the last one; a view that is not newer is dropped. The channel delivers its views in
     * order, but the transport also hands over the channel's view once it has connected, read on another thread: if a
     * newer view was delivered meanwhile, publishing the one read before would make this node take the members that
     * joined in between for gone, until the next view (a node starting with 11 others saw one of them leave the moment
     * it joined, and kept it out of its view for minutes).
     *
     * @param view the view
     */
    @Override
    public synchronized void viewAccepted(View view) {
        View last = lastView;
        if (last != null && view.getViewId().compareToIDs(last.getViewId()) <= 0) {
            return;
        }
        lastView = view;
        List<Member> list = names.view(view);
        viewInstalled.accept(view);
        listener.onView(list);
    }

    private void deliver(Member from, byte[] buffer, int offset, int length) {
        Transport.Listener l = listener;
        if (length > 0 && buffer[offset] == BatchFormat.MAGIC) {
            String broken = BatchFormat.unpack(buffer, offset, length, (b, o, n) -> l.onFrame(from, b, o, n));
            if (broken != null) {
                long n = malformedBatches.incrementAndGet();
                if (n == 1 || Long.bitCount(n) == 1) {
                    log.warn(
                            "Dropped the rest of a malformed batch of {} bytes from {} ({} so far): {}",
                            length,
                            from,
                            n,
                            broken);
                }
            }
        } else {
            l.onFrame(from, buffer, offset, length);
        }
    }

    /** A frame from a member still named by its UUID: if JGroups knows its name now, the view is published again. */
    private void learnName(Address from) {
        if (names.learn(from)) {
            publishAgain(from);
        }
    }

    /** The last view again, with a name just learnt; in order with {@link #viewAccepted}, never after a newer view. */
    private synchronized void publishAgain(Address named) {
        View view = lastView;
        if (view != null) {
            List<Member> list = names.members(view);
            log.info("Learnt the name of member {}: publishing view {} again", named, list);
            listener.onView(list);
        }
    }
}
