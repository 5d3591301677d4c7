package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import java.util.ArrayList;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.Util;
import org.junit.jupiter.api.Test;

class ChannelReceiverTest {

    private final List<List<String>> published = new ArrayList<>();

    private final List<View> installed = new ArrayList<>();

    private final ChannelReceiver receiver = new ChannelReceiver(
            new MemberNames(),
            new Transport.Listener() {
                @Override
                public void onFrame(Member from, byte[] buffer, int offset, int length) {}

                @Override
                public void onView(List<Member> members) {
                    published.add(members.stream().map(Member::name).toList());
                }
            },
            installed::add);

    private final Address a = Util.createRandomAddress("a");

    private final Address b = Util.createRandomAddress("b");

    private final Address c = Util.createRandomAddress("c");

    @Test
    void aViewReadBeforeANewerOneWasDeliveredIsDroppedWhenItIsHandedOverLate() {
        View joined = View.create(a, 1, a, b);
        View third = View.create(a, 2, a, b, c);
        receiver.viewAccepted(joined);
        receiver.viewAccepted(third); // delivered by the channel while the transport was starting
        receiver.viewAccepted(joined); // the channel's view as the transport read it after connecting
        receiver.viewAccepted(third); // the same view again
        assertThat(published).containsExactly(List.of("a", "b"), List.of("a", "b", "c"));
        assertThat(installed).containsExactly(joined, third);
    }

    @Test
    void aNewerViewFromAnotherCoordinatorIsPublished() {
        receiver.viewAccepted(View.create(a, 4, a, b, c));
        receiver.viewAccepted(View.create(b, 5, b, c)); // a left, b took over
        receiver.viewAccepted(View.create(a, 4, a, b, c)); // late
        assertThat(published).containsExactly(List.of("a", "b", "c"), List.of("b", "c"));
    }
}
