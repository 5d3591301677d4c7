package dev.sharding;

import org.jspecify.annotations.Nullable;

/**
 * A node of the cluster: the unique id of its current membership and the name it gave itself. Two members are equal
 * when their ids are; a node that restarts is a new member.
 */
public final class Member implements Comparable<Member> {

    private final long mostSignificantBits;

    private final long leastSignificantBits;

    private final String name;

    /**
     * Creates a member.
     *
     * @param mostSignificantBits the upper half of the 128-bit id
     * @param leastSignificantBits the lower half of the 128-bit id
     * @param name the node name
     */
    public Member(long mostSignificantBits, long leastSignificantBits, String name) {
        this.mostSignificantBits = mostSignificantBits;
        this.leastSignificantBits = leastSignificantBits;
        this.name = name;
    }

    /**
     * The upper half of the id.
     *
     * @return the bits
     */
    public long mostSignificantBits() {
        return mostSignificantBits;
    }

    /**
     * The lower half of the id.
     *
     * @return the bits
     */
    public long leastSignificantBits() {
        return leastSignificantBits;
    }

    /**
     * The node name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The id as a UUID string.
     *
     * @return the id
     */
    public String id() {
        return new java.util.UUID(mostSignificantBits, leastSignificantBits).toString();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof Member m
                && m.mostSignificantBits == mostSignificantBits
                && m.leastSignificantBits == leastSignificantBits;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(mostSignificantBits) * 31 + Long.hashCode(leastSignificantBits);
    }

    @Override
    public int compareTo(Member other) {
        int c = Long.compare(mostSignificantBits, other.mostSignificantBits);
        return c != 0 ? c : Long.compare(leastSignificantBits, other.leastSignificantBits);
    }

    @Override
    public String toString() {
        return name;
    }
}
