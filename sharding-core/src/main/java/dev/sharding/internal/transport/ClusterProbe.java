package dev.sharding.internal.transport;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.protocol.GetRegionStats;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.RegionStats;
import dev.sharding.internal.protocol.RegionStopped;
import dev.sharding.internal.protocol.RegionStoppedAck;
import dev.sharding.internal.protocol.ShardStates;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.Discovery;
import org.jgroups.protocols.PingData;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.util.Responses;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A short-lived member that joins a cluster only to see who else is alive in it, with the JGroups configuration a
 * node of the cluster would use (cluster name, stack or bind address, port and initial hosts, channel customizer).
 * Its logical name starts with {@link #NAME_PREFIX}, so that it is recognisable in the nodes' views and logs.
 *
 * <h2>Liveness</h2>
 * Connecting a JGroups channel runs discovery and joins the coordinator it found; a channel that is the only member
 * of its view after connecting found nobody. Because JGroups also becomes a singleton after too many unanswered join
 * attempts, a probe that is alone runs one more discovery round ({@link #liveMembers()}): any other process that
 * answers it is alive.
 *
 * <h2>Being a member without regions</h2>
 * While connected, the probe is a member of the nodes' view. It runs no region and never sends {@code Register}, so
 * no coordinator gives it a shard. It answers the requests every view member is expected to answer, as a node
 * without regions would: {@code GetShardStates} (a coordinator activating meanwhile waits for every member's
 * answer), {@code RegionStopped} (a node leaving waits for every member's acknowledgement) and
 * {@code GetRegionStats}. Everything else is ignored. When the probe is the oldest member, which happens only when
 * it found the cluster stopped, nodes starting meanwhile join it and take it for their coordinator: they allocate no
 * shard, and so use no sharding data, until it has left.
 */
public final class ClusterProbe implements Transport.Listener, AutoCloseable {

    /** The start of every probe's logical name. */
    public static final String NAME_PREFIX = "sharding-admin-probe-";

    /** The top 32 bits of every probe's logical address ({@link #isProbe(Member)}). */
    static final long ADDRESS_MARK = 0x5348_5052L;

    private static final Logger log = LoggerFactory.getLogger(ClusterProbe.class);

    /** How long the second discovery round waits when the stack has no GMS to say its join timeout. */
    private static final long DEFAULT_DISCOVERY_MILLIS = 2000;

    private final JGroupsTransport transport;

    private final ProtocolCodec protocol;

    private volatile List<Member> view = List.of();

    private ClusterProbe(
            ShardingSettings settings,
            Consumer<JChannel> customizer,
            dev.sharding.internal.transport.@org.jspecify.annotations.Nullable JdbcDiscovery jdbc) {
        this.transport = new JGroupsTransport(
                settings.withNodeName(NAME_PREFIX + UUID.randomUUID().toString().substring(0, 8)),
                ch -> {
                    ch.addAddressGenerator(ClusterProbe::probeAddress);
                    customizer.accept(ch);
                },
                jdbc);
        this.protocol = new ProtocolCodec(settings.maxPayloadSize());
    }

    /**
     * Joins the cluster of the settings; returns once discovery is over and the probe is a member.
     *
     * @param settings the settings a node of the cluster uses; the node name is replaced by the probe's
     * @param customizer applied to the channel before it connects, as to a node's
     * @return the connected probe; close it
     * @throws ShardingException if the channel cannot be made or cannot connect
     */
    public static ClusterProbe connect(ShardingSettings settings, Consumer<JChannel> customizer) {
        return connect(settings, customizer, null);
    }

    /**
     * Joins the cluster of the settings, finding it through a discovery table when the settings say
     * {@code discovery=jdbc}; returns once discovery is over and the probe is a member.
     *
     * @param settings the settings a node of the cluster uses; the node name is replaced by the probe's
     * @param customizer applied to the channel before it connects, as to a node's
     * @param jdbc where JDBC discovery keeps its table, or {@code null}
     * @return the connected probe; close it
     * @throws ShardingException if the channel cannot be made or cannot connect
     */
    public static ClusterProbe connect(
            ShardingSettings settings,
            Consumer<JChannel> customizer,
            dev.sharding.internal.transport.@org.jspecify.annotations.Nullable JdbcDiscovery jdbc) {
        ClusterProbe probe = new ClusterProbe(settings.validate(), Objects.requireNonNull(customizer), jdbc);
        try {
            probe.transport.start(probe);
        } catch (ShardingException e) {
            throw e;
        } catch (Exception e) {
            throw new ShardingException(
                    "Could not join cluster '" + settings.clusterName() + "' to look for live members: "
                            + e.getMessage(),
                    e);
        }
        log.debug("Probe {} joined cluster {}: view {}", probe.name(), settings.clusterName(), probe.view);
        return probe;
    }

    /**
     * The probe's logical name.
     *
     * @return {@link #NAME_PREFIX} and a random suffix
     */
    public String name() {
        return transport.nodeName();
    }

    /**
     * This probe as a member.
     *
     * @return the member
     */
    public Member self() {
        return transport.self();
    }

    /**
     * The other members alive: those of the view if there are any, else those that answer a discovery round. Other
     * probes do not count. Blocks for the discovery round (the stack's join timeout) when the probe is alone.
     *
     * @return their names, oldest first; empty when the cluster is stopped
     */
    public List<String> liveMembers() {
        Member me = self();
        List<String> others = new ArrayList<>();
        for (Member m : view) {
            if (!m.equals(me) && !isProbe(m.name())) {
                others.add(m.name());
            }
        }
        return others.isEmpty() ? discoverOthers() : others;
    }

    private List<String> discoverOthers() {
        JChannel channel = Objects.requireNonNull(transport.channel(), "channel");
        Discovery discovery = channel.getProtocolStack().findProtocol(Discovery.class);
        if (discovery == null) {
            return List.of();
        }
        GMS gms = channel.getProtocolStack().findProtocol(GMS.class);
        long timeout = gms == null ? DEFAULT_DISCOVERY_MILLIS : gms.getJoinTimeout();
        Responses responses = discovery.findMembers(null, false, true, timeout);
        responses.waitFor(timeout);
        Address me = channel.getAddress();
        List<String> found = new ArrayList<>();
        for (PingData data : responses) {
            Address a = data.getAddress();
            String name = data.getLogicalName() != null ? data.getLogicalName() : String.valueOf(a);
            if (a != null && !a.equals(me) && !isProbe(name)) {
                found.add(name);
            }
        }
        responses.done();
        if (!found.isEmpty()) {
            log.warn("Probe {} was alone in its view, but {} answered its discovery: not stopped", name(), found);
        }
        return found;
    }

    /**
     * A probe's logical address: random, with {@link #ADDRESS_MARK} in its top 32 bits. Names travel in discovery
     * answers, which are not sealed, so anyone could rename a member to look like a probe; the addresses of a view's
     * members travel in sealed view messages, so the nodes decide on the mark, never on the name.
     */
    private static Address probeAddress() {
        org.jgroups.util.UUID random = org.jgroups.util.UUID.randomUUID();
        return new org.jgroups.util.UUID(
                (ADDRESS_MARK << 32) | (random.getMostSignificantBits() & 0xFFFF_FFFFL),
                random.getLeastSignificantBits());
    }

    /**
     * Whether a member of a view is a probe, by the mark in its address. Probes never count in split-brain decisions.
     *
     * @param member the member
     * @return true for a probe
     */
    public static boolean isProbe(Member member) {
        return (member.mostSignificantBits() >>> 32) == ADDRESS_MARK;
    }

    /**
     * Whether a member is a probe, by its name: for what a probe itself reads of discovery, and for display. Probes do not count as alive: two removals at once do no harm.
     *
     * @param memberName the member's logical name
     * @return true for a probe
     */
    public static boolean isProbe(String memberName) {
        return memberName.startsWith(NAME_PREFIX);
    }

    /**
     * Leaves the cluster.
     */
    @Override
    public void close() {
        transport.close();
    }

    @Override
    public void onFrame(Member from, byte[] buffer, int offset, int length) {
        ProtocolMessage msg;
        try {
            msg = protocol.decode(buffer, offset, length);
        } catch (MalformedFrameException | IllegalArgumentException e) {
            return;
        }
        @Nullable ProtocolMessage answer = null;
        if (msg instanceof GetShardStates) {
            answer = new ShardStates(List.of());
        } else if (msg instanceof RegionStopped) {
            answer = new RegionStoppedAck();
        } else if (msg instanceof GetRegionStats m) {
            answer = new RegionStats(m.requestId(), false, List.of(), List.of());
        }
        if (answer != null) {
            transport.send(from, protocol.encode(answer), false);
        }
    }

    @Override
    public void onView(List<Member> members) {
        view = members;
    }
}
