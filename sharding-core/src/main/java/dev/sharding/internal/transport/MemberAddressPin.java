package dev.sharding.internal.transport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.PhysicalAddress;
import org.jgroups.View;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.stack.Protocol;
import org.jgroups.util.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the physical address of every member of the current view as it was when it joined.
 *
 * <p>Discovery answers are not sealed: they must reach nodes that have not joined yet, and they travel below the
 * {@link ClusterGuard}. Each one JGroups takes in writes the sender's logical address and physical address into the
 * transport's cache, overwriting what was there. So anyone who can send a packet to a node could map a member's
 * address to a host of their own, and the node's traffic to that member would go there (sealed, so unreadable, but
 * lost: failure detection would then suspect a healthy member, and views would churn). A member of the current view
 * never changes its physical address (a restarted node joins with a new logical address), so a discovery answer that
 * tries to move one is dropped here, once logged; addresses of nodes outside the view are cached as before.
 *
 * <p>Placed directly above the transport protocol, below discovery: the events pass through it on their way down.
 */
public final class MemberAddressPin extends Protocol {

    /** The protocol id (ids of 1024 and more are free for applications). */
    static final short ID = 1753;

    static {
        ClassConfigurator.addProtocol(ID, MemberAddressPin.class);
    }

    private static final Logger logger = LoggerFactory.getLogger(MemberAddressPin.class);

    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private volatile Set<Address> members = Set.of();

    private final AtomicLong refused = new AtomicLong();

    private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

    public MemberAddressPin() {
        id = ID;
    }

    /** How many attempts to move a member's physical address were dropped. */
    public long refusedCount() {
        return refused.get();
    }

    @Override
    public Object down(Event evt) {
        switch (evt.getType()) {
            case Event.VIEW_CHANGE -> {
                View view = evt.getArg();
                Set<Address> now = ConcurrentHashMap.newKeySet();
                now.addAll(view.getMembers());
                members = now;
            }
            case Event.ADD_PHYSICAL_ADDRESS -> {
                if (movesAMember(evt.getArg())) {
                    return false;
                }
            }
            default -> {
                // passed on
            }
        }
        return down_prot.down(evt);
    }

    private boolean movesAMember(Object arg) {
        if (!(arg instanceof Tuple<?, ?> tuple)
                || !(tuple.val1() instanceof Address logical)
                || !(tuple.val2() instanceof PhysicalAddress physical)
                || !members.contains(logical)) {
            return false;
        }
        Object known = down_prot.down(new Event(Event.GET_PHYSICAL_ADDRESS, logical));
        if (known == null || known.equals(physical)) {
            return false;
        }
        long n = refused.incrementAndGet();
        long now = System.nanoTime();
        long last = lastLog.get();
        if (now - last >= LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
            logger.warn(
                    "Dropped a discovery answer that would move member {} from {} to {} ({} so far): members of the"
                            + " view keep the address they joined with; a forged packet, or a node started with the"
                            + " address of a running one",
                    logical,
                    known,
                    physical,
                    n);
        }
        return true;
    }
}
