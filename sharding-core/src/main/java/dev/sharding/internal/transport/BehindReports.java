package dev.sharding.internal.transport;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.EmptyMessage;
import org.jgroups.Event;
import org.jgroups.Header;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.Util;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Has a member that stays behind removed from the view as a crashed one would be.
 *
 * <p>JGroups' failure detection suspects a member that sends no heartbeat; a member that still heartbeats but reads
 * slowly (a full disk, swapping, a congested link) is never suspected, and a suspicion of it would not survive
 * VERIFY_SUSPECT2, which it answers. The node's transport sees such a member instead: the frames queued toward it
 * stop going out ({@link Outbox.Peer#behindNanos}). It reports the member here, and this protocol hands a
 * {@code SUSPECT} event straight to GMS, above the verification, on the member that would be the coordinator without
 * the suspect: the coordinator itself, or the next in line when the suspect is the coordinator. That member removes
 * the suspect from the view; the split-brain strategy then treats it as a crashed member.
 *
 * <p>Placed directly below GMS, so that its messages are sealed by the guard like every other; it acts on reports
 * from members of its view only.
 */
public final class BehindReports extends Protocol {

    /** The protocol id and the header's magic id (ids of 1024 and more are free for applications). */
    static final short ID = 1752;

    static {
        ClassConfigurator.addProtocol(ID, BehindReports.class);
        ClassConfigurator.addIfAbsent(ID, ReportHeader.class);
    }

    private static final Logger logger = LoggerFactory.getLogger(BehindReports.class);

    private volatile @Nullable View view;

    /** Creates the protocol. */
    public BehindReports() {
        setId(ID);
    }

    /**
     * Reports a member that stays behind: to the member that would coordinate without it, or, when that is this
     * node, straight to GMS. Never waits for the network: the report goes out through a relay lane.
     *
     * @param suspect the member
     * @return whether it was reported (false when it is not in the view or is this node)
     */
    boolean report(Address suspect) {
        View v = view;
        Address self = local_addr;
        if (v == null || self == null || suspect.equals(self) || !v.containsMember(suspect)) {
            return false;
        }
        Address judge = null;
        for (Address m : v.getMembersRaw()) {
            if (!m.equals(suspect)) {
                judge = m;
                break;
            }
        }
        if (judge == null) {
            return false;
        }
        if (judge.equals(self)) {
            suspect(suspect, self);
            return true;
        }
        Message msg = new EmptyMessage(judge)
                .putHeader(ID, new ReportHeader(suspect))
                .setFlag(Message.Flag.OOB, Message.Flag.NO_FC);
        // sent as if delivering: the relay writes it, so that this thread never waits for the judge's socket
        int[] state = SendingThreads.state();
        state[0]++;
        try {
            down_prot.down(msg);
        } catch (RuntimeException e) {
            logger.debug("Could not report {} to {}: {}", suspect, judge, e.toString());
        } finally {
            state[0]--;
        }
        return true;
    }

    private void suspect(Address suspect, Address reporter) {
        View v = view;
        if (v == null || !v.containsMember(suspect) || !v.containsMember(reporter) || suspect.equals(local_addr)) {
            return;
        }
        logger.warn(
                "Removing member {} from the view: {} reports it has stayed behind (it does not read what is sent to"
                        + " it; setting sharding.backpressure.suspect-after)",
                suspect,
                reporter.equals(local_addr) ? "this node" : reporter);
        up_prot.up(new Event(Event.SUSPECT, List.of(suspect)));
    }

    @Override
    public @Nullable Object up(Message msg) {
        ReportHeader h = msg.getHeader(ID);
        if (h == null) {
            return up_prot.up(msg);
        }
        Address from = msg.getSrc();
        if (from != null && h.suspect != null) {
            suspect(h.suspect, from);
        }
        return null;
    }

    @Override
    public void up(MessageBatch batch) {
        Address from = batch.sender();
        batch.removeIf(
                msg -> {
                    ReportHeader h = msg.getHeader(ID);
                    if (h == null) {
                        return false;
                    }
                    if (h.suspect != null && from != null) {
                        suspect(h.suspect, from);
                    }
                    return true;
                },
                true);
        if (!batch.isEmpty()) {
            up_prot.up(batch);
        }
    }

    @Override
    public Object down(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE) {
            view = evt.getArg();
        }
        return down_prot.down(evt);
    }

    @Override
    public Object up(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE) {
            view = evt.getArg();
        }
        return up_prot.up(evt);
    }

    /** The header of a report: the member that stays behind. */
    public static final class ReportHeader extends Header {

        private @Nullable Address suspect;

        /** For JGroups' {@link #create()}. */
        public ReportHeader() {}

        ReportHeader(Address suspect) {
            this.suspect = suspect;
        }

        @Override
        public short getMagicId() {
            return ID;
        }

        @Override
        public Supplier<? extends Header> create() {
            return ReportHeader::new;
        }

        @Override
        public int serializedSize() {
            return Util.size(suspect);
        }

        @Override
        public void writeTo(DataOutput out) throws IOException {
            Util.writeAddress(suspect, out);
        }

        @Override
        public void readFrom(DataInput in) throws IOException, ClassNotFoundException {
            suspect = Util.readAddress(in);
        }

        @Override
        public String toString() {
            return "behind " + suspect;
        }
    }
}
