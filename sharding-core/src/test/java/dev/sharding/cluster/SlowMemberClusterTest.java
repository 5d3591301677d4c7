package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.BackpressureSettings;
import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.MemberBehindException;
import dev.sharding.MemberSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.LoopbackTcp;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member that stays alive but reads nothing from one node: its failure detection still hears that node, and that
 * node still hears its heartbeats, so nothing suspects it, but no frame that node sends it is ever taken (a protocol
 * above failure detection drops them, as a member too slow to read would leave them in its socket). The sending
 * node's entities, which tell the slow member's entities on their own threads, must keep answering; its durable asks
 * to the third member must complete; its asks to the slow member fail fast with {@link MemberBehindException}; and
 * the slow member is reported and removed from the view.
 */
class SlowMemberClusterTest {

    private static final int CHUNK = 16 * 1024;

    private static final AtomicReference<ShardingNode> SENDER = new AtomicReference<>();

    private final List<ShardingNode> nodes = new ArrayList<>();

    private final ControllableStore store = new ControllableStore();

    private final HoldInbound hold = new HoldInbound();

    private final AtomicBoolean flooding = new AtomicBoolean(true);

    /** Counts the bytes it receives, and says where it runs. */
    public static class Sink {

        private final EntityContext context;

        Sink(EntityContext context) {
            this.context = context;
        }

        static EntityType<Sink> type() {
            return EntityType.of(Sink.class, Sink::new);
        }

        /** Takes a chunk. */
        @EntityHandler
        public void on(Chunk chunk) {
            // counted by nobody: the test asserts on what the sender sees
        }

        /** Says where it runs. */
        @EntityHandler
        public Where on(Locate locate) {
            return new Where(context.nodeName());
        }
    }

    /** Hosted on the sending node only: tells a chunk to a sink, on its entity thread. */
    public static class Forwarder {

        private final EntityContext context;

        Forwarder(EntityContext context) {
            this.context = context;
        }

        static EntityType<Forwarder> type() {
            return EntityType.of(Forwarder.class, Forwarder::new);
        }

        /** Tells the chunk on; answers where it runs. */
        @EntityHandler
        public Where on(Forward forward) {
            SENDER.get().region(Sink.class).tell(forward.target(), new Chunk(forward.data()));
            return new Where(context.nodeName());
        }

        /** Says where it runs. */
        @EntityHandler
        public Where on(Locate locate) {
            return new Where(context.nodeName());
        }
    }

    /** A chunk of bytes. @param data the bytes */
    public record Chunk(byte[] data) {}

    /** A chunk to tell a sink. @param target the sink @param data the bytes */
    public record Forward(String target, byte[] data) {}

    /** Asks where an entity runs. */
    public record Locate() {}

    /** Where an entity runs. @param node the node */
    public record Where(String node) {}

    /** Drops every unicast message from one member while set, above failure detection. */
    static final class HoldInbound extends Protocol {

        volatile @Nullable Address from;

        @Override
        public Object up(Message msg) {
            Address f = from;
            if (f != null && msg.getDest() != null && f.equals(msg.getSrc())) {
                return null;
            }
            return up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            Address f = from;
            if (f != null && batch.dest() != null && f.equals(batch.sender())) {
                return;
            }
            up_prot.up(batch);
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        flooding.set(false);
        hold.from = null;
        Thread closer = new Thread(() -> nodes.forEach(ShardingNode::close), "slow-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(TimeUnit.MINUTES.toMillis(1));
        SENDER.set(null);
    }

    @Test
    void aMemberThatStopsReadingIsRefusedFastAndRemovedWhileTheSendersOtherTrafficGoesOn() throws Exception {
        // node 0 coordinates, node 1 sends (and alone hosts the forwarders), node 2 stops reading from node 1
        List<ShardingSettings> settings = LoopbackTcp.nodes("slow", 3);
        AtomicReference<JChannel> senderChannel = new AtomicReference<>();
        BackpressureSettings backpressure = BackpressureSettings.DEFAULT
                .withMaxQueuedBytes(BackpressureSettings.MIN_MAX_QUEUED_BYTES)
                .withSuspectAfter(Duration.ofSeconds(6));
        LoopbackTcp.start(
                settings,
                s -> {
                    int index = settings.indexOf(s);
                    ShardingSettings own = s.withBackpressure(backpressure)
                            .withEntity(
                                    "forwarder",
                                    EntityTypeSettings.builder().role("sender").build());
                    if (index == 1) {
                        own = own.withMember(MemberSettings.DEFAULT.withRoles(Set.of("sender")));
                    }
                    return ShardingNode.builder(own)
                            .entityType(Sink.type())
                            .entityType(Forwarder.type())
                            .entityType(Wallet.type())
                            .store(store)
                            .channelCustomizer(ch -> {
                                if (index == 1) {
                                    senderChannel.set(ch);
                                } else if (index == 2) {
                                    ch.getProtocolStack()
                                            .insertProtocolInStack(
                                                    hold,
                                                    ch.getProtocolStack().findProtocol(VERIFY_SUSPECT2.class),
                                                    ProtocolStack.Position.ABOVE);
                                }
                            });
                },
                nodes);
        ShardingNode coordinator = nodes.get(0);
        ShardingNode sender = nodes.get(1);
        ShardingNode slow = nodes.get(2);
        SENDER.set(sender);

        Map<String, List<String>> sinks = homes(sender, Sink.class, "sink-", 2);
        Map<String, List<String>> wallets = homes(sender, Wallet.class, "wallet-", 2);
        List<String> forwarders =
                homes(sender, Forwarder.class, "forwarder-", 1).get(sender.nodeName());
        assertThat(forwarders).isNotNull();
        List<String> slowSinks = sinks.get(slow.nodeName());
        List<String> otherSinks = new ArrayList<>(sinks.get(coordinator.nodeName()));
        otherSinks.addAll(sinks.get(sender.nodeName()));
        List<String> coordinatorWallets = wallets.get(coordinator.nodeName());

        // the slow member stops taking what the sender sends; the sender's entities flood it
        hold.from = senderChannel.get().getAddress();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicLong forwarded = new AtomicLong();
        List<Thread> floods = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            String forwarder = "forwarder-flood-" + t;
            String target = slowSinks.get(t % slowSinks.size());
            Thread flood = new Thread(
                    () -> {
                        byte[] data = new byte[CHUNK];
                        while (flooding.get()) {
                            try {
                                sender.region(Forwarder.class)
                                        .ask(forwarder, new Forward(target, data), Where.class, Duration.ofSeconds(30))
                                        .get(60, TimeUnit.SECONDS);
                                forwarded.incrementAndGet();
                            } catch (Exception e) {
                                failures.add(e);
                                return;
                            }
                        }
                    },
                    "slow-flood-" + t);
            flood.setDaemon(true);
            flood.start();
            floods.add(flood);
        }

        // the queue toward the slow member fills: an ask to it is refused after the longest wait
        Awaitility.await("the queue toward the slow member full")
                .atMost(Duration.ofSeconds(30))
                .until(() -> sender.traffic().refusedFrames() > 0);
        // once it has taken nothing for a second, even a small ask with room left in the queue is refused at once
        Awaitility.await("an ask to the slow member refused")
                .atMost(Duration.ofSeconds(20))
                .until(() -> failureOf(sender, slowSinks.get(0)) instanceof MemberBehindException);
        assertThat(sender.traffic().maxQueuedBytes())
                .isLessThanOrEqualTo(BackpressureSettings.MIN_MAX_QUEUED_BYTES * 5 / 4 + 2 * CHUNK);

        // meanwhile the sender's entities answer, and its asks to the others, durable ones too, complete
        for (int round = 0; round < 10; round++) {
            for (String id : otherSinks) {
                assertThat(sender.region(Sink.class)
                                .ask(id, new Locate(), Where.class)
                                .get(10, TimeUnit.SECONDS)
                                .node())
                        .isNotEqualTo(slow.nodeName());
            }
            assertThat(sender.region(Forwarder.class)
                            .ask("forwarder-quiet", new Locate(), Where.class)
                            .get(10, TimeUnit.SECONDS)
                            .node())
                    .isEqualTo(sender.nodeName());
            for (String id : coordinatorWallets) {
                assertThat(sender.region(Wallet.class)
                                .ask(id, new Wallet.Deposit(1), Wallet.Reply.class)
                                .get(10, TimeUnit.SECONDS)
                                .node())
                        .isEqualTo(coordinator.nodeName());
            }
        }
        long before = forwarded.get();
        Awaitility.await("the forwarders keep going")
                .atMost(Duration.ofSeconds(30))
                .until(() -> forwarded.get() > before + 20);
        assertThat(failures).isEmpty();

        // the slow member stays behind: the sender reports it and the coordinator removes it from the view
        Awaitility.await("the slow member removed from the sender's view")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> sender.members().stream().noneMatch(m -> m.name().equals(slow.nodeName())));
        assertThat(sender.traffic().membersReportedBehind()).isPositive();
        flooding.set(false);
        for (Thread t : floods) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failures).isEmpty();
    }

    /** The ids, of at least {@code perNode} entities on each node, by the node that hosts them. */
    private Map<String, List<String>> homes(ShardingNode via, Class<?> type, String prefix, int perNode)
            throws Exception {
        Map<String, List<String>> homes = new ConcurrentHashMap<>();
        for (int i = 0; i < 1000 && !enough(homes, perNode, type == Forwarder.class ? 1 : nodes.size()); i++) {
            String id = prefix + i;
            String node = type == Wallet.class
                    ? via.region(Wallet.class)
                            .ask(id, new Wallet.Deposit(1), Wallet.Reply.class)
                            .get(10, TimeUnit.SECONDS)
                            .node()
                    : ((ShardingNode) via)
                            .region(type)
                            .ask(id, new Locate(), Where.class)
                            .get(10, TimeUnit.SECONDS)
                            .node();
            homes.computeIfAbsent(node, k -> new CopyOnWriteArrayList<>()).add(id);
        }
        return homes;
    }

    private static boolean enough(Map<String, List<String>> homes, int perNode, int nodes) {
        return homes.size() >= nodes && homes.values().stream().allMatch(l -> l.size() >= perNode);
    }

    /** What an ask to a sink failed with, or null when it was answered. */
    private static @Nullable Throwable failureOf(ShardingNode node, String sink) throws InterruptedException {
        try {
            node.region(Sink.class)
                    .ask(sink, new Locate(), Where.class, Duration.ofSeconds(1))
                    .get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            return e;
        }
    }
}
