package dev.sharding.internal.transport;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * stop going out ({@link OutboxPeer#behindNanos}). It reports the member here, and this protocol hands a
 * {@code SUSPECT} event straight to GMS, above the verification, on the member that would be the coordinator without
 * the suspect: the coordinator itself, or the next in line when the suspect is the coordinator. That member removes
 * the suspect from the view; the split-brain strategy then treats it as a crashed member.
 *
 * <p>It also has a member that some members cannot hear removed, as Akka's split brain resolver downs indirectly
 * connected nodes. JGroups' failure detection removes a member only when the coordinator itself stops hearing it: a
 * member that one member cannot hear (one direction of a link lost, or two members that cannot reach each other
 * while both reach the rest) stays in the view, and every message over the broken link is lost for as long as it
 * lasts. A suspicion of the failure detection ({@link ReportingFdAll3}) on a member that is not the coordinator
 * therefore goes to the coordinator as a report ({@link UnreachableHeader}), again each half second while it lasts.
 * The coordinator waits {@link #UNREACHABLE_DELAY_MILLIS}: a member that crashed is removed by its own failure
 * detection meanwhile, and the report is dropped; so is one not repeated lately (a pause that ended). If both are
 * still in the view then, it removes the member that cannot be heard, unless that is the coordinator itself or the
 * reporter cannot hear two or more members (then the reporter's own link is the broken one, and it is removed).
 *
 * <p>Placed directly below GMS, so that its messages are sealed by the guard like every other; it acts on reports
 * from members of its view only.
 */
public final class BehindReports extends Protocol {

    /** The protocol id and the header's magic id (ids of 1024 and more are free for applications). */
    static final short ID = 1752;

    /** The magic id of {@link UnreachableHeader}. */
    static final short UNREACHABLE_ID = 1754;

    /** How long the coordinator waits on a report of a member that cannot be heard before it acts on it. */
    static final long UNREACHABLE_DELAY_MILLIS = 2000;

    static {
        ClassConfigurator.addProtocol(ID, BehindReports.class);
        ClassConfigurator.addIfAbsent(ID, ReportHeader.class);
        ClassConfigurator.addIfAbsent(UNREACHABLE_ID, UnreachableHeader.class);
    }

    /** Per reporter, the members it reported it cannot hear since the last view: for the coordinator. */
    private final Map<Address, Map<Address, Long>> unheard = new ConcurrentHashMap<>();

    /** How often a member reports, at most, that it still cannot hear another. */
    static final long REPORT_INTERVAL_MILLIS = 500;

    private static final long REPORT_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(REPORT_INTERVAL_MILLIS);

    /** When this node last reported each member it cannot hear. */
    private final Map<Address, Long> lastReported = new ConcurrentHashMap<>();

    /** How many members were removed because another could not hear them, or could not hear others. */
    private final AtomicLong unreachableRemovals = new AtomicLong();

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
        send(judge, ID, new ReportHeader(suspect));
        return true;
    }

    /**
     * Sends a report, as if delivering: the relay writes it, so that this thread (a transport thread, or failure
     * detection's timer) never waits for the receiver's socket.
     */
    private void send(Address to, short headerId, AddressHeader header) {
        Message msg = new EmptyMessage(to).putHeader(headerId, header).setFlag(Message.Flag.OOB, Message.Flag.NO_FC);
        int[] state = SendingThreads.state();
        state[0]++;
        try {
            down_prot.down(msg);
        } catch (RuntimeException e) {
            logger.debug("Could not send {} to {}: {}", header, to, e.toString());
        } finally {
            state[0]--;
        }
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

    /** How many members the coordinator on this node removed because some member could not hear them, or others. */
    long unreachableRemovals() {
        return unreachableRemovals.get();
    }

    /**
     * This node's failure detection suspects members (each time its timeout check finds them silent again): unless
     * this node is the coordinator, whose GMS removes them itself, it reports those still in the view to the
     * coordinator, at most once every {@link #REPORT_INTERVAL_MILLIS} each.
     */
    void cannotHear(List<Address> suspects) {
        View v = view;
        Address self = local_addr;
        if (v == null || self == null) {
            return;
        }
        Address coordinator = v.getCoord();
        if (coordinator == null || coordinator.equals(self)) {
            return;
        }
        long now = System.nanoTime();
        for (Address suspect : suspects) {
            if (!suspect.equals(self)
                    && v.containsMember(suspect)
                    && ClusterGuard.due(lastReported, suspect, now, REPORT_INTERVAL_NANOS)) {
                send(coordinator, UNREACHABLE_ID, new UnreachableHeader(suspect));
            }
        }
    }

    /** On the coordinator: a member reports it cannot hear another; acted on after a delay, if both are still there. */
    private void reportedUnheard(Address subject, Address reporter) {
        View v = view;
        if (v == null
                || !local_addr.equals(v.getCoord())
                || !v.containsMember(reporter)
                || !v.containsMember(subject)) {
            return;
        }
        Map<Address, Long> subjects = unheard.computeIfAbsent(reporter, r -> new ConcurrentHashMap<>());
        if (subjects.put(subject, System.nanoTime()) != null) {
            return; // already waiting on it; the time of its last report is kept
        }
        View reportedIn = v;
        try {
            getTransport()
                    .getTimer()
                    .schedule(
                            () -> judgeUnheard(subject, reporter, reportedIn),
                            UNREACHABLE_DELAY_MILLIS,
                            TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            logger.debug("Cannot schedule the judgement of a report on {}: {}", subject, e.toString());
        }
    }

    private void judgeUnheard(Address subject, Address reporter, View reportedIn) {
        View v = view;
        if (v == null || !v.getViewId().equals(reportedIn.getViewId()) || !local_addr.equals(v.getCoord())) {
            return; // the view changed meanwhile (a crash, say): the report is stale
        }
        Map<Address, Long> subjects = unheard.getOrDefault(reporter, Map.of());
        Long last = subjects.get(subject);
        if (last == null || System.nanoTime() - last > 3 * REPORT_INTERVAL_NANOS) {
            // no longer reported: the reporter hears it again (a pause that ended, a link that came back)
            subjects.remove(subject);
            return;
        }
        Address remove;
        String why;
        if (subject.equals(local_addr)) {
            remove = reporter;
            why = "it cannot hear this node, its coordinator";
        } else if (recent(subjects) >= 2) {
            remove = reporter;
            why = "it cannot hear " + recent(subjects) + " members that this node hears: its own link is broken";
        } else {
            remove = subject;
            why = "member " + reporter + " cannot hear it, while this node can (one direction of a link lost, or two"
                    + " members that cannot reach each other)";
        }
        unreachableRemovals.incrementAndGet();
        logger.warn("Removing member {} from the view: {}", remove, why);
        up_prot.up(new Event(Event.SUSPECT, List.of(remove)));
    }

    @Override
    public @Nullable Object up(Message msg) {
        UnreachableHeader u = msg.getHeader(UNREACHABLE_ID);
        if (u != null) {
            Address from = msg.getSrc();
            if (from != null && u.member != null) {
                reportedUnheard(u.member, from);
            }
            return null;
        }
        ReportHeader h = msg.getHeader(ID);
        if (h == null) {
            return up_prot.up(msg);
        }
        Address from = msg.getSrc();
        if (from != null && h.member != null) {
            suspect(h.member, from);
        }
        return null;
    }

    @Override
    public void up(MessageBatch batch) {
        Address from = batch.sender();
        batch.removeIf(
                msg -> {
                    UnreachableHeader u = msg.getHeader(UNREACHABLE_ID);
                    if (u != null) {
                        if (u.member != null && from != null) {
                            reportedUnheard(u.member, from);
                        }
                        return true;
                    }
                    ReportHeader h = msg.getHeader(ID);
                    if (h == null) {
                        return false;
                    }
                    if (h.member != null && from != null) {
                        suspect(h.member, from);
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
            viewChanged(evt.getArg());
        }
        return down_prot.down(evt);
    }

    @Override
    public Object up(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE) {
            viewChanged(evt.getArg());
        }
        return up_prot.up(evt);
    }

    /** How many of a reporter's subjects it reported lately. */
    private static long recent(Map<Address, Long> subjects) {
        long since = System.nanoTime() - 3 * REPORT_INTERVAL_NANOS;
        return subjects.values().stream().filter(t -> t - since > 0).count();
    }

    private void viewChanged(View v) {
        View before = view;
        view = v;
        if (before == null || !before.getViewId().equals(v.getViewId())) {
            unheard.clear();
            lastReported.keySet().retainAll(v.getMembers());
        }
    }

    /** A header carrying one member's address: the base of both reports. */
    abstract static class AddressHeader extends Header {

        @Nullable
        Address member;

        AddressHeader() {}

        AddressHeader(Address member) {
            this.member = member;
        }

        @Override
        public int serializedSize() {
            return Util.size(member);
        }

        @Override
        public void writeTo(DataOutput out) throws IOException {
            Util.writeAddress(member, out);
        }

        @Override
        public void readFrom(DataInput in) throws IOException, ClassNotFoundException {
            member = Util.readAddress(in);
        }
    }

    /** The header of a report to the coordinator: a member the sender cannot hear. */
    public static final class UnreachableHeader extends AddressHeader {

        /** For JGroups' {@link #create()}. */
        public UnreachableHeader() {}

        UnreachableHeader(Address subject) {
            super(subject);
        }

        @Override
        public short getMagicId() {
            return UNREACHABLE_ID;
        }

        @Override
        public Supplier<? extends Header> create() {
            return UnreachableHeader::new;
        }

        @Override
        public String toString() {
            return "cannot hear " + member;
        }
    }

    /** The header of a report: the member that stays behind. */
    public static final class ReportHeader extends AddressHeader {

        /** For JGroups' {@link #create()}. */
        public ReportHeader() {}

        ReportHeader(Address suspect) {
            super(suspect);
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
        public String toString() {
            return "behind " + member;
        }
    }
}
