package dev.sharding.internal.protocol;

/**
 * Who may send a control message. The receiving node drops a message from anyone else, and counts it: a stale
 * coordinator of a former view, or a process that is not a member, changes nothing.
 */
public enum Sender {

    /** Only the coordinator of the receiver's current view. */
    COORDINATOR,

    /** Any member of the receiver's current view. */
    MEMBER,

    /** Anyone, a process that has just left the view included: a lease request, so that it learns why it is refused. */
    ANYONE,

    /** Entity traffic: checked by the shard's epoch and lease, not by the sender. */
    ANY_NODE
}
