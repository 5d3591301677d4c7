package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.PhysicalAddress;
import org.jgroups.View;
import org.jgroups.stack.IpAddress;
import org.jgroups.stack.Protocol;
import org.jgroups.util.Tuple;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A discovery answer, which is not sealed, must not move a member of the current view to another host: the transport's
 * address cache keeps what the member joined with. Addresses of nodes outside the view are cached as before.
 */
class MemberAddressPinTest {

    private final Address member = UUID.randomUUID();

    private final Address stranger = UUID.randomUUID();

    private final PhysicalAddress joinedWith = address(7800);

    private final PhysicalAddress forged = address(6666);

    private final Transport transport = new Transport();

    private final MemberAddressPin pin = new MemberAddressPin();

    MemberAddressPinTest() {
        pin.setDownProtocol(transport);
        transport.cache.put(member, joinedWith);
    }

    @Test
    void aMemberOfTheViewKeepsItsAddress() {
        pin.down(new Event(Event.VIEW_CHANGE, View.create(member, 1, member)));

        Object answer = pin.down(new Event(Event.ADD_PHYSICAL_ADDRESS, new Tuple<>(member, forged)));

        assertThat(answer).isEqualTo(false);
        assertThat(transport.cache).containsEntry(member, joinedWith);
        assertThat(pin.refusedCount()).isEqualTo(1);
        // the address it joined with is taken again, as the transport always did
        pin.down(new Event(Event.ADD_PHYSICAL_ADDRESS, new Tuple<>(member, joinedWith)));
        assertThat(pin.refusedCount()).isEqualTo(1);
    }

    @Test
    void nodesOutsideTheViewAndMembersThatLeftAreCachedAsBefore() {
        pin.down(new Event(Event.VIEW_CHANGE, View.create(member, 1, member)));
        pin.down(new Event(Event.ADD_PHYSICAL_ADDRESS, new Tuple<>(stranger, forged)));
        assertThat(transport.cache).containsEntry(stranger, forged);

        pin.down(new Event(Event.VIEW_CHANGE, View.create(stranger, 2, stranger)));
        pin.down(new Event(Event.ADD_PHYSICAL_ADDRESS, new Tuple<>(member, forged)));
        assertThat(transport.cache).containsEntry(member, forged);
        assertThat(pin.refusedCount()).isZero();
        assertThat(transport.passed).as("every other event passes").hasSize(4);
    }

    /** A host's address: the port tells them apart. */
    private static PhysicalAddress address(int port) {
        return new IpAddress(java.net.InetAddress.getLoopbackAddress(), port);
    }

    /** The transport's address cache, as far as the pin uses it. */
    private static final class Transport extends Protocol {

        final Map<Address, PhysicalAddress> cache = new HashMap<>();

        final List<Event> passed = new ArrayList<>();

        @Override
        public Object down(Event evt) {
            switch (evt.getType()) {
                case Event.GET_PHYSICAL_ADDRESS -> {
                    return cache.get((Address) evt.getArg());
                }
                case Event.ADD_PHYSICAL_ADDRESS -> {
                    Tuple<Address, PhysicalAddress> t = evt.getArg();
                    cache.put(t.val1(), t.val2());
                    passed.add(evt);
                    return true;
                }
                default -> {
                    passed.add(evt);
                    return null;
                }
            }
        }
    }
}
