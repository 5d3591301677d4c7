package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireWriter;

/**
 * Every message nodes exchange, one record per message, in one sealed family per recipient: {@link CoordinatorMessage},
 * {@link RegionMessage}, {@link LeaseMessage}, {@link NodeMessage} and {@link EntityTraffic}. Each family's
 * {@code Handler} has one method per message, so a recipient that forgets one does not compile. Each message has a
 * stable wire tag (never reuse or renumber one) and writes its own fields; {@link ProtocolCodec} reads them back.
 */
public sealed interface ProtocolMessage
        permits CoordinatorMessage, RegionMessage, LeaseMessage, NodeMessage, EntityTraffic {

    /**
     * The wire tag.
     *
     * @return the tag, unique per message type
     */
    int tag();

    /**
     * Writes the fields after the tag.
     *
     * @param out the writer
     */
    void writeTo(WireWriter out);

    /**
     * Who may send this message.
     *
     * @return the senders the receiver accepts it from
     */
    Sender sender();

    /**
     * Hands a control message to the recipient of its family.
     *
     * @param recipients the node's recipients
     * @param from the sender
     */
    void routeTo(Recipients recipients, Member from);
}
