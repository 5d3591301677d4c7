package dev.sharding.internal.transport;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.util.ByteArray;
import org.jgroups.util.Util;
import org.jspecify.annotations.Nullable;

/**
 * The sealing of {@link ClusterGuard}: AES-256-GCM under this node's session key (derived from the cluster key and a
 * random salt of its own) with a counter as nonce; opening with each sender's session key, derived once per salt, and
 * its {@link ReplayWindow}. Any thread.
 */
final class GuardCipher {

    /** What {@link #open} returns for an authentic message seen before, or too old. */
    static final Message REPLAYED = new org.jgroups.EmptyMessage();

    private static final int TAG_BITS = 128;

    /** The most senders kept; more (forged salts, most likely) start the table again. */
    private static final int MAX_PEERS = 4096;

    private final byte[] clusterKey;

    private final byte[] salt = new byte[GuardHeader.SALT_LENGTH];

    private final SecretKeySpec sessionKey;

    private final AtomicLong counter = new AtomicLong();

    private final Map<SaltKey, Peer> peers = new ConcurrentHashMap<>();

    private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(GuardCipher::newCipher);

    GuardCipher(byte[] clusterKey) {
        this.clusterKey = clusterKey.clone();
        new SecureRandom().nextBytes(salt);
        this.sessionKey = ClusterKeys.sessionKey(this.clusterKey, salt);
    }

    /** Seals a whole message, headers included, into a new one with the {@link GuardHeader} in clear. */
    Message seal(Message msg, short headerId) throws Exception {
        ByteArray plain = Util.messageToBuffer(msg);
        long n = counter.incrementAndGet();
        Cipher cipher = ciphers.get();
        cipher.init(Cipher.ENCRYPT_MODE, sessionKey, nonce(n));
        byte[] sealed = cipher.doFinal(plain.array(), plain.offset(), plain.length());
        Message out = new BytesMessage(msg.getDest(), sealed).setFlag(msg.getFlags(), false);
        if (msg.isFlagSet(Message.TransientFlag.DONT_LOOPBACK)) {
            out.setFlag(Message.TransientFlag.DONT_LOOPBACK);
        }
        return out.putHeader(headerId, new GuardHeader(GuardHeader.SEALED, salt, n));
    }

    /**
     * Opens a sealed message.
     *
     * @return the original, {@link #REPLAYED}, or {@code null} when it is not sealed with the cluster key
     */
    @Nullable
    Message open(GuardHeader header, Message msg) {
        if (!msg.hasArray() || msg.getLength() < TAG_BITS / 8) {
            return null;
        }
        Peer peer = peers.get(new SaltKey(header.salt()));
        SecretKeySpec spec = peer != null ? peer.key : ClusterKeys.sessionKey(clusterKey, header.salt());
        byte[] plain;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.DECRYPT_MODE, spec, nonce(header.counter()));
            plain = cipher.doFinal(msg.getArray(), msg.getOffset(), msg.getLength());
        } catch (GeneralSecurityException | RuntimeException e) {
            return null; // the JDK throws ProviderException for some malformed input
        }
        if (peer == null) {
            if (peers.size() >= MAX_PEERS) {
                peers.clear();
            }
            peer = peers.computeIfAbsent(new SaltKey(header.salt()), s -> new Peer(spec));
        }
        if (!peer.window.accept(header.counter())) {
            return REPLAYED;
        }
        try {
            Message original = Util.messageFromBuffer(plain, 0, plain.length);
            if (peer.member == null) {
                peer.member = original.getSrc();
            }
            return original;
        } catch (Exception e) {
            return null;
        }
    }

    /** Forgets the windows of members that left (a restarted node comes back with a new salt). */
    void viewChanged(View view) {
        peers.values().removeIf(p -> p.member != null && !view.containsMember(p.member));
    }

    private static GCMParameterSpec nonce(long n) {
        byte[] iv = new byte[12];
        for (int i = 0; i < 8; i++) {
            iv[11 - i] = (byte) (n >>> (8 * i));
        }
        return new GCMParameterSpec(TAG_BITS, iv);
    }

    private static Cipher newCipher() {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM is not available", e);
        }
    }

    /** A salt as a map key. */
    private record SaltKey(byte[] salt) {
        @Override
        public boolean equals(@Nullable Object o) {
            return o instanceof SaltKey other && Arrays.equals(salt, other.salt);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(salt);
        }
    }

    /** What is kept per sending node: its session key, the counters seen, and the member it is. */
    private static final class Peer {
        final SecretKeySpec key;
        final ReplayWindow window = new ReplayWindow();
        volatile @Nullable Address member;

        Peer(SecretKeySpec key) {
            this.key = key;
        }
    }
}
