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
import org.jgroups.util.ByteArrayDataOutputStream;
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

    /** The highest counter seen from each member that left, by salt, until it comes back. */
    private final Map<SaltKey, Long> departed = new ConcurrentHashMap<>();

    private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(GuardCipher::newCipher);

    /** Per thread: the buffer a message is serialised into before sealing, or opened into before parsing. */
    private static final ThreadLocal<Buffers> BUFFERS = ThreadLocal.withInitial(Buffers::new);

    GuardCipher(byte[] clusterKey) {
        this.clusterKey = clusterKey.clone();
        new SecureRandom().nextBytes(salt);
        this.sessionKey = ClusterKeys.sessionKey(this.clusterKey, salt);
        JitWarmUp.start();
    }

    /**
     * Runs AES-GCM on a throw-away key, once per JVM, in the background, until the JIT has compiled its callers with
     * the CPU's AES and carry-less multiply instructions. Without it a node seals with the JDK's pure-Java GHASH for
     * its first minutes, because large batches call the cipher too rarely to get it compiled early: measured, the
     * cluster secret then cost about a quarter of the tell throughput in the first seconds (about 30 times slower per
     * sealed byte). The warm-up takes well under a second of one core, at low priority.
     */
    static final class JitWarmUp {
        private static final java.util.concurrent.atomic.AtomicBoolean STARTED =
                new java.util.concurrent.atomic.AtomicBoolean();

        static final int ROUNDS = 30_000;

        private JitWarmUp() {}

        static void start() {
            if (!STARTED.compareAndSet(false, true)) {
                return;
            }
            Thread t = new Thread(JitWarmUp::run, "sharding-guard-warm-up");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            t.start();
        }

        static void run() {
            try {
                byte[] key = new byte[32];
                new SecureRandom().nextBytes(key);
                SecretKeySpec spec = new SecretKeySpec(key, "AES");
                Cipher cipher = newCipher();
                byte[] plain = new byte[2048];
                byte[] sealed = new byte[plain.length + TAG_BITS / 8];
                byte[] opened = new byte[plain.length];
                for (int i = 1; i <= ROUNDS; i++) {
                    int length = 16 + (i * 61) % (plain.length - 16);
                    cipher.init(Cipher.ENCRYPT_MODE, spec, nonce(i));
                    int n = cipher.doFinal(plain, 0, length, sealed, 0);
                    cipher.init(Cipher.DECRYPT_MODE, spec, nonce(i));
                    cipher.doFinal(sealed, 0, n, opened, 0);
                }
            } catch (GeneralSecurityException | RuntimeException e) {
                // only speed is at stake
            }
        }
    }

    /**
     * Seals a whole message, headers included, into a new one with the {@link GuardHeader} in clear. The message is
     * serialised into this thread's buffer and encrypted from there into the new message's array: one array per
     * message, the one that is sent.
     */
    Message seal(Message msg, short headerId) throws Exception {
        Buffers buffers = BUFFERS.get();
        ByteArrayDataOutputStream plain = buffers.output();
        plain.writeShort(msg.getType());
        msg.writeTo(plain);
        int length = plain.position();
        long n = counter.incrementAndGet();
        Cipher cipher = ciphers.get();
        cipher.init(Cipher.ENCRYPT_MODE, sessionKey, nonce(n));
        byte[] sealed = new byte[length + TAG_BITS / 8];
        int written = cipher.doFinal(plain.buffer(), 0, length, sealed, 0);
        buffers.release(plain);
        if (written != sealed.length) {
            throw new IllegalStateException("AES/GCM wrote " + written + " bytes, not " + sealed.length);
        }
        Message out = new BytesMessage(msg.getDest(), sealed).setFlag(msg.getFlags(), false);
        if (msg.isFlagSet(Message.TransientFlag.DONT_LOOPBACK)) {
            out.setFlag(Message.TransientFlag.DONT_LOOPBACK);
        }
        return out.putHeader(headerId, new GuardHeader(GuardHeader.SEALED, salt, n));
    }

    /**
     * Opens a sealed message, whatever its destination.
     *
     * @return the original, {@link #REPLAYED}, or {@code null} when it is not sealed with the cluster key
     */
    @Nullable
    Message open(GuardHeader header, Message msg) {
        return open(header, msg, null);
    }

    /**
     * Opens a sealed message addressed to this node or to all: one sealed for another node (a copy of a frame from
     * elsewhere on the network) counts as a replay, before it touches the sender's window.
     *
     * @param header the guard header
     * @param msg the sealed message
     * @param local this node's address, or {@code null} to accept any destination
     * @return the original, {@link #REPLAYED}, or {@code null} when it is not sealed with the cluster key
     */
    @Nullable
    Message open(GuardHeader header, Message msg, @Nullable Address local) {
        if (!msg.hasArray() || msg.getLength() < TAG_BITS / 8) {
            return null;
        }
        Peer peer = peers.get(new SaltKey(header.salt()));
        SecretKeySpec spec = peer != null ? peer.key : ClusterKeys.sessionKey(clusterKey, header.salt());
        Buffers buffers = BUFFERS.get();
        byte[] plain = buffers.input(msg.getLength() - TAG_BITS / 8);
        int length;
        try {
            Cipher cipher = ciphers.get();
            cipher.init(Cipher.DECRYPT_MODE, spec, nonce(header.counter()));
            length = cipher.doFinal(msg.getArray(), msg.getOffset(), msg.getLength(), plain, 0);
        } catch (GeneralSecurityException | RuntimeException e) {
            return null; // the JDK throws ProviderException for some malformed input
        }
        Message original;
        try {
            // the message's payload and headers are read into arrays of their own: the buffer is free again after
            original = Util.messageFromBuffer(plain, 0, length);
        } catch (Exception e) {
            return null;
        }
        Address dest = original.getDest();
        if (local != null && dest != null && !dest.equals(local)) {
            return REPLAYED; // sealed for another node: neither delivered here nor counted in the sender's window
        }
        if (peer == null) {
            if (peers.size() >= MAX_PEERS) {
                peers.clear();
            }
            SaltKey salt = new SaltKey(header.salt());
            Long left = departed.remove(salt);
            peer = peers.computeIfAbsent(salt, s -> new Peer(spec, left == null ? 0 : left));
        }
        if (!peer.window.accept(header.counter())) {
            return REPLAYED;
        }
        if (peer.member == null) {
            peer.member = original.getSrc();
        }
        return original;
    }

    /**
     * Forgets the windows of members that left (a restarted node comes back with a new salt), keeping of each only the
     * highest counter seen: a member that comes back with the same salt (a merge after a partition) is heard again
     * from above it, and its frames from before are refused as replays, as they were while its window was kept.
     */
    void viewChanged(View view) {
        peers.entrySet().removeIf(e -> {
            Peer p = e.getValue();
            if (p.member == null || view.containsMember(p.member)) {
                return false;
            }
            if (departed.size() >= MAX_PEERS) {
                departed.clear();
            }
            departed.put(e.getKey(), p.window.highest());
            return true;
        });
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

    /**
     * A thread's buffers, kept between messages up to {@value #KEPT} bytes; a larger message (a batch near the frame
     * limit) gets buffers of its own, so that no thread holds a large array for good.
     */
    private static final class Buffers {
        static final int KEPT = 64 * 1024;

        private ByteArrayDataOutputStream output = new ByteArrayDataOutputStream(1024, true);

        private byte[] input = new byte[1024];

        ByteArrayDataOutputStream output() {
            output.position(0);
            return output;
        }

        void release(ByteArrayDataOutputStream used) {
            if (used.capacity() > KEPT) {
                output = new ByteArrayDataOutputStream(1024, true);
            }
        }

        byte[] input(int length) {
            if (length <= input.length) {
                return input;
            }
            byte[] bigger = new byte[Math.max(length, input.length * 2)];
            if (bigger.length <= KEPT) {
                input = bigger;
            }
            return bigger;
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
        final ReplayWindow window;
        volatile @Nullable Address member;

        Peer(SecretKeySpec key, long floor) {
            this.key = key;
            this.window = new ReplayWindow(floor);
        }
    }
}
