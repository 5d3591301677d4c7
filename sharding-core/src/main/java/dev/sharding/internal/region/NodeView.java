package dev.sharding.internal.region;

import dev.sharding.Member;
import java.util.List;

/** Who the node a region runs on is, and who else is in the view: a role of {@link RegionHost}. */
public interface NodeView {

    /** This member; throws before the node started. */
    Member self();

    String nodeName();

    /** The members of the current view. */
    List<Member> members();

    /** Whether a member is in the current view; on every message sent to another node. Any thread. */
    boolean isMember(Member member);
}
