package dev.sharding.internal.transport;

import java.util.List;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jspecify.annotations.Nullable;

/**
 * JGroups' FD_ALL3, which also tells what it suspects on a member that is not the coordinator.
 *
 * <p>FD_ALL3 acts on a suspicion only on the member that would coordinate without the suspects: on every other
 * member it is kept to itself, since the coordinator's own failure detection is trusted to see the same. Under a
 * one-way loss, or a cut between two members that both reach the coordinator, it does not: the coordinator hears
 * the member that another cannot. This subclass hands every suspicion, each time the timeout check finds it again, to
 * {@link BehindReports}, which reports it to the coordinator. It keeps FD_ALL3's protocol id, so its heartbeats are
 * FD_ALL3's on the wire and it runs beside nodes with the plain protocol.
 */
public final class ReportingFdAll3 extends FD_ALL3 {

    private volatile @Nullable Consumer<List<Address>> listener;

    public ReportingFdAll3() {
        setId(ClassConfigurator.getProtocolId(FD_ALL3.class));
    }

    /** Who hears the suspicions; null for nobody. */
    void listener(@Nullable Consumer<List<Address>> listener) {
        this.listener = listener;
    }

    @Override
    protected void suspect(List<Address> suspects) {
        Consumer<List<Address>> l = listener;
        if (l != null && suspects != null && !suspects.isEmpty()) {
            try {
                l.accept(List.copyOf(suspects));
            } catch (RuntimeException e) {
                log.debug("The listener of suspicions failed: %s", e);
            }
        }
        super.suspect(suspects);
    }

    /**
     * Puts this protocol in the place of a stack's FD_ALL3, with its timeout and interval.
     *
     * @param stack the stack, not started yet
     * @return the protocol, or null when the stack has no FD_ALL3
     * @throws Exception when JGroups refuses the change
     */
    static @Nullable ReportingFdAll3 replaceIn(ProtocolStack stack) throws Exception {
        Protocol p = stack.findProtocol(FD_ALL3.class);
        if (p instanceof ReportingFdAll3 r) {
            return r;
        }
        if (!(p instanceof FD_ALL3 plain)) {
            return null;
        }
        ReportingFdAll3 r = new ReportingFdAll3();
        r.setTimeout(plain.getTimeout());
        r.setInterval(plain.getInterval());
        r.setProtocolStack(stack);
        stack.replaceProtocol(plain, r);
        return r;
    }
}
