package dev.sharding.internal.transport;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.function.Supplier;
import org.jgroups.Header;

/**
 * The header of {@link ClusterGuard}: on a sealed message, the sender's salt and the message's counter (together
 * they give the AES-GCM key and nonce); on a refusal notice, only its kind. Carried in clear text.
 */
public final class GuardHeader extends Header {

    /** A sealed message: the payload is the whole original message, encrypted and authenticated. */
    static final byte SEALED = 1;

    /** A refusal: the receiver needs sealed messages and got one that was not. */
    static final byte REFUSED_UNSEALED = 2;

    /** A refusal: the receiver could not open a sealed message, so the two nodes have different keys. */
    static final byte REFUSED_OTHER_KEY = 3;

    /** A refusal: the receiver has no key and got a sealed message. */
    static final byte REFUSED_SEALED = 4;

    /** The length of a sender's salt. */
    static final int SALT_LENGTH = 16;

    private byte kind;

    private byte[] salt = new byte[0];

    private long counter;

    /** For JGroups' {@link #create()}. */
    public GuardHeader() {}

    GuardHeader(byte kind, byte[] salt, long counter) {
        this.kind = kind;
        this.salt = salt;
        this.counter = counter;
    }

    static GuardHeader refusal(byte kind) {
        return new GuardHeader(kind, new byte[0], 0);
    }

    byte kind() {
        return kind;
    }

    byte[] salt() {
        return salt;
    }

    long counter() {
        return counter;
    }

    @Override
    public short getMagicId() {
        return ClusterGuard.MAGIC_ID;
    }

    @Override
    public Supplier<? extends Header> create() {
        return GuardHeader::new;
    }

    @Override
    public int serializedSize() {
        return kind == SEALED ? 1 + SALT_LENGTH + Long.BYTES : 1;
    }

    @Override
    public void writeTo(DataOutput out) throws IOException {
        out.writeByte(kind);
        if (kind == SEALED) {
            out.write(salt);
            out.writeLong(counter);
        }
    }

    @Override
    public void readFrom(DataInput in) throws IOException {
        kind = in.readByte();
        if (kind == SEALED) {
            salt = new byte[SALT_LENGTH];
            in.readFully(salt);
            counter = in.readLong();
        } else if (kind < SEALED || kind > REFUSED_SEALED) {
            throw new IOException("Unknown sharding guard header kind " + kind);
        }
    }

    @Override
    public String toString() {
        return "GuardHeader[kind=" + kind + (kind == SEALED ? ", counter=" + counter : "") + "]";
    }
}
