package dev.sharding.internal.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.EmptyMessage;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.PhysicalAddress;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.JoinRsp;
import org.jgroups.stack.Protocol;
import org.jgroups.util.FastArray;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.NameCache;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seals all cluster traffic above discovery with the cluster key, and refuses what is not sealed with it.
 *
 * <p>Placed directly above the discovery protocol, so every message of the protocols above (merge, failure
 * detection, membership, retransmission and the sharding frames) passes through it. Sending, it serialises the whole
 * message, headers included, and encrypts it with AES-256-GCM under the node's session key (derived from the cluster
 * key and a random salt of the node's) and a counter as nonce; the salt and counter travel in clear in a
 * {@link GuardHeader}. Receiving, it opens the message (GCM checks that it is authentic), drops replays
 * ({@link ReplayWindow}), and passes the original up. Anything else is dropped before any protocol above sees it, and
 * its sender gets a short refusal notice, at most one a second.
 *
 * <p>Without a key the guard passes unsealed messages through and refuses sealed ones, so that a node without a
 * secret and a cluster with one (or the reverse) tell each other. A node that gets a refusal while joining fails its
 * join with the reason, through the membership protocol's own join-failure path, rather than forming a cluster of
 * its own; {@link #refusal()} holds the reason for the log.
 *
 * <p>Discovery stays in clear text: it carries cluster name, node names and addresses, as in JGroups' own
 * encryption, which sits higher still.
 */
public final class ClusterGuard extends Protocol {

    /** The protocol id and the header's magic id (ids of 1024 and more are free for applications). */
    static final short MAGIC_ID = 1750;

    static {
        ClassConfigurator.addProtocol(MAGIC_ID, ClusterGuard.class);
        ClassConfigurator.addIfAbsent(MAGIC_ID, GuardHeader.class);
    }

    private static final Logger logger = LoggerFactory.getLogger(ClusterGuard.class);

    private static final long NOTICE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final int MAX_PEERS = 4096;

    /** The sealing, or {@code null} without a cluster key. */
    private final @Nullable GuardCipher cipher;

    private final String clusterName;

    private final Map<Address, Long> lastNotice = new ConcurrentHashMap<>();

    /** When {@link #lastNotice} was last pruned of senders noticed more than a notice interval ago. */
    private final AtomicLong lastPrune;

    /** The monotonic clock the notices are limited by: {@link System#nanoTime()}, or a test's. */
    private final LongSupplier nanoClock;

    private final Map<String, Long> lastLog = new ConcurrentHashMap<>();

    private final AtomicLong refused = new AtomicLong();

    private final AtomicLong replayed = new AtomicLong();

    private volatile boolean joined;

    private volatile @Nullable String refusal;

    /**
     * Creates the guard.
     *
     * @param clusterKey the cluster key, or {@code null} to pass unsealed traffic and refuse sealed
     * @param clusterName the cluster name, for messages
     */
    public ClusterGuard(byte @Nullable [] clusterKey, String clusterName) {
        this(clusterKey, clusterName, System::nanoTime);
    }

    /** Creates the guard with its own clock for the notices' limits (tests). */
    ClusterGuard(byte @Nullable [] clusterKey, String clusterName, LongSupplier nanoClock) {
        this.cipher = clusterKey == null ? null : new GuardCipher(clusterKey);
        this.clusterName = clusterName;
        this.nanoClock = nanoClock;
        this.lastPrune = new AtomicLong(nanoClock.getAsLong() - NOTICE_INTERVAL_NANOS);
        setId(MAGIC_ID);
    }

    /**
     * Why a member refused this node while it joined.
     *
     * @return the reason, or {@code null} if none did
     */
    public @Nullable String refusal() {
        return refusal;
    }

    /**
     * How many authentic messages this guard dropped as replays (their counter was seen or is too old).
     *
     * @return the count, part of {@link #refusedCount()}
     */
    public long replayedCount() {
        return replayed.get();
    }

    /**
     * How many messages this guard has refused.
     *
     * @return the count
     */
    public long refusedCount() {
        return refused.get();
    }

    @Override
    public Object down(Event evt) {
        if (evt.getType() == Event.VIEW_CHANGE) {
            joined = true;
            GuardCipher c = cipher;
            if (c != null) {
                c.viewChanged(evt.getArg());
            }
        }
        return down_prot.down(evt);
    }

    @Override
    public @Nullable Object down(Message msg) {
        GuardCipher c = cipher;
        if (c == null) {
            return down_prot.down(msg);
        }
        if (msg.getSrc() == null) {
            msg.setSrc(local_addr);
        }
        try {
            return down_prot.down(c.seal(msg, MAGIC_ID));
        } catch (Exception e) {
            logger.warn("Could not seal a message to {}: {}", msg.getDest(), e.toString());
            return null;
        }
    }

    @Override
    public @Nullable Object up(Message msg) {
        Message passed = check(msg);
        return passed == null ? null : up_prot.up(passed);
    }

    @Override
    public void up(MessageBatch batch) {
        FastArray<Message>.FastIterator it = (FastArray<Message>.FastIterator) batch.iterator();
        while (it.hasNext()) {
            Message msg = it.next();
            Message passed = check(msg);
            if (passed == null) {
                it.remove();
            } else if (passed != msg) {
                it.replace(passed);
            }
        }
        if (!batch.isEmpty()) {
            up_prot.up(batch);
        }
    }

    /** The message to pass up, or {@code null} if it is refused or a notice; never throws. */
    private @Nullable Message check(Message msg) {
        try {
            return checkUnsafe(msg);
        } catch (RuntimeException e) {
            refused.incrementAndGet();
            logger.debug("Dropped a message from {} that could not be checked: {}", msg.getSrc(), e.toString());
            return null;
        }
    }

    private @Nullable Message checkUnsafe(Message msg) {
        GuardHeader header = msg.getHeader(MAGIC_ID);
        Address from = msg.getSrc();
        if (header == null) {
            if (cipher == null) {
                return msg;
            }
            refuse(from, GuardHeader.REFUSED_UNSEALED, "it is not sealed: that node has no sharding.jgroups.secret");
            return null;
        }
        if (header.kind() != GuardHeader.SEALED) {
            onRefusal(from, header.kind());
            return null;
        }
        if (cipher == null) {
            refuse(
                    from,
                    GuardHeader.REFUSED_SEALED,
                    "it is sealed: that node has a sharding.jgroups.secret and this one has none");
            return null;
        }
        Message opened = cipher.open(header, msg, local_addr);
        if (opened == GuardCipher.REPLAYED) {
            replayed.incrementAndGet();
            refused.incrementAndGet();
            return null; // authentic but seen before, or too old: a replay, or a very late copy; no notice
        }
        if (opened == null) {
            refuse(
                    from,
                    GuardHeader.REFUSED_OTHER_KEY,
                    "it is sealed with another key: that node has a different sharding.jgroups.secret");
        }
        return opened;
    }

    private void refuse(@Nullable Address from, byte kind, String why) {
        refused.incrementAndGet();
        String sender = describe(from);
        long now = nanoClock.getAsLong();
        if (lastLog.size() >= MAX_PEERS) {
            lastLog.clear(); // many senders: forged ones, most likely; their lines stay rate-limited per sender
        }
        if (due(lastLog, sender + kind, now, LOG_INTERVAL_NANOS)) {
            logger.warn(
                    "Cluster '{}' refused a message from {}: {} ({} refused so far)",
                    clusterName,
                    sender,
                    why,
                    refused.get());
        }
        // at most one notice a second to each of at most MAX_PEERS senders of the last second; JGroups itself limits
        // the address lookups of senders it does not know (TP's who-has cache)
        if (from != null && lastNotice.size() >= MAX_PEERS && !lastNotice.containsKey(from)) {
            // the senders noticed more than a second ago may be noticed again anyway: they make room, at most once a
            // notice interval, so that a flood of forged senders costs one pass over the map a second, not one each
            long last = lastPrune.get();
            if (now - last >= NOTICE_INTERVAL_NANOS && lastPrune.compareAndSet(last, now)) {
                lastNotice.values().removeIf(at -> now - at >= NOTICE_INTERVAL_NANOS);
            }
        }
        if (from != null
                && (lastNotice.size() < MAX_PEERS || lastNotice.containsKey(from))
                && due(lastNotice, from, now, NOTICE_INTERVAL_NANOS)) {
            Message notice = new EmptyMessage(from)
                    .setFlag(Message.Flag.OOB, Message.Flag.NO_RELIABILITY)
                    .putHeader(MAGIC_ID, GuardHeader.refusal(kind));
            try {
                down_prot.down(notice);
            } catch (RuntimeException e) {
                logger.debug("Could not send a refusal to {}: {}", sender, e.toString());
            }
        }
    }

    /** Whether a rate-limited action for a key is due now; if so, records now as its last time. Any thread. */
    static <K> boolean due(Map<K, Long> last, K key, long now, long interval) {
        boolean[] due = {false};
        last.compute(key, (k, previous) -> {
            if (previous == null || now - previous >= interval) {
                due[0] = true;
                return now;
            }
            return previous;
        });
        return due[0];
    }

    private void onRefusal(@Nullable Address from, byte kind) {
        String why = switch (kind) {
            case GuardHeader.REFUSED_UNSEALED -> "the cluster has a sharding.jgroups.secret and this node has none";
            case GuardHeader.REFUSED_OTHER_KEY -> "the cluster has a different sharding.jgroups.secret than this node";
            case GuardHeader.REFUSED_SEALED -> "the cluster has no sharding.jgroups.secret and this node has one";
            default -> "unknown refusal " + kind;
        };
        String reason = "member " + describe(from) + " of cluster '" + clusterName + "' refused this node: " + why;
        if (joined) {
            if (due(lastLog, "notice" + describe(from), nanoClock.getAsLong(), LOG_INTERVAL_NANOS)) {
                logger.warn("{}", reason);
            }
            return;
        }
        if (refusal == null) {
            refusal = reason;
            logger.error(
                    "Cannot join cluster '{}': {}",
                    clusterName,
                    reason.replace(" of cluster '" + clusterName + "'", ""));
        }
        failJoin(from, reason);
    }

    /** Ends a join in progress with the reason, as a refused join response from the coordinator would. */
    private void failJoin(@Nullable Address from, String reason) {
        Protocol gms = getProtocolStack() == null ? null : getProtocolStack().findProtocol(GMS.class);
        if (gms == null) {
            return;
        }
        Message rsp = new BytesMessage(local_addr)
                .setSrc(from)
                .putHeader(gms.getId(), new GMS.GmsHeader(GMS.GmsHeader.JOIN_RSP))
                .setArray(GMS.marshal(new JoinRsp(reason)));
        gms.up(rsp);
    }

    private String describe(@Nullable Address from) {
        if (from == null) {
            return "an unknown sender";
        }
        String name = NameCache.get(from);
        PhysicalAddress physical =
                getTransport() == null ? null : getTransport().getPhysicalAddressFromCache(from);
        return (name != null ? name : from.toString()) + (physical != null ? " at " + physical : "");
    }
}
