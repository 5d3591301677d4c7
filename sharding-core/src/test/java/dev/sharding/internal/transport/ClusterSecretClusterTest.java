package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@code sharding.jgroups.secret}: nodes with the same secret form a cluster and serve; a node with another secret,
 * or none, cannot join and says why in one line; and what a non-member sends (forged control messages, entity
 * messages, frames that look sealed) reaches neither the runtime nor an entity.
 */
class ClusterSecretClusterTest {

    static final String SECRET = "correct horse battery staple";

    private final Map<String, JChannel> channels = new ConcurrentHashMap<>();

    private final TestCluster cluster = new TestCluster(settings -> ShardingNode.builder(settings)
            .entityType(Counter.type())
            .channelCustomizer(ch -> channels.put(settings.nodeName(), ch)));

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    private JChannel raw;

    private ShardingNode stranger;

    @BeforeEach
    void captureLog() {
        log.start();
        ((Logger) LoggerFactory.getLogger(ClusterGuard.class)).addAppender(log);
    }

    @AfterEach
    void stop() {
        ((Logger) LoggerFactory.getLogger(ClusterGuard.class)).detachAppender(log);
        if (raw != null) {
            raw.close();
        }
        if (stranger != null && stranger.isRunning()) {
            stranger.close();
        }
        cluster.close();
    }

    static UnaryOperator<ShardingSettings> secret(String secret) {
        return s -> s.withJgroups(s.jgroups().withSecret(secret));
    }

    @Test
    void nodesWithTheSameSecretFormOneClusterAndServe() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3, secret(SECRET));
        for (int i = 0; i < 30; i++) {
            Counter.Total t = nodes.get(i % 3)
                    .region(Counter.class)
                    .ask("s-" + i, new Counter.Add(3), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.total()).isEqualTo(3);
        }
        for (ShardingNode n : nodes) {
            ClusterGuard guard = channels.get(n.nodeName()).getProtocolStack().findProtocol(ClusterGuard.class);
            assertThat(guard).as("guard in the stack of " + n.nodeName()).isNotNull();
            assertThat(guard.refusedCount()).isZero();
        }
    }

    @Test
    void aNodeWithAnotherSecretCannotJoinAndSaysWhy() {
        ShardingNode member = cluster.startNode(secret(SECRET));
        stranger = ShardingNode.builder(secret("another secret, just as long").apply(cluster.settings("stranger")))
                .entityType(Counter.type())
                .build();
        assertThatThrownBy(stranger::start)
                .isInstanceOf(ShardingException.class)
                .hasMessageContaining("different sharding.jgroups.secret");
        assertThat(member.members()).hasSize(1);
        assertThat(lines(Level.ERROR))
                .singleElement()
                .asString()
                .contains("Cannot join cluster")
                .contains("different sharding.jgroups.secret");
        assertThat(lines(Level.WARN)).anyMatch(l -> l.contains("sealed with another key"));
        assertServes(member);
    }

    @Test
    void aNodeWithoutSecretCannotJoinASecuredCluster() {
        ShardingNode member = cluster.startNode(secret(SECRET));
        stranger = ShardingNode.builder(cluster.settings("stranger"))
                .entityType(Counter.type())
                .build();
        assertThatThrownBy(stranger::start)
                .isInstanceOf(ShardingException.class)
                .hasMessageContaining("has a sharding.jgroups.secret and this node has none");
        assertThat(member.members()).hasSize(1);
        assertThat(lines(Level.ERROR)).singleElement().asString().contains("Cannot join cluster");
        assertServes(member);
    }

    @Test
    void aNodeWithASecretCannotJoinAnOpenCluster() {
        ShardingNode member = cluster.startNode();
        stranger = ShardingNode.builder(secret(SECRET).apply(cluster.settings("stranger")))
                .entityType(Counter.type())
                .build();
        assertThatThrownBy(stranger::start)
                .isInstanceOf(ShardingException.class)
                .hasMessageContaining("has no sharding.jgroups.secret and this node has one");
        assertThat(member.members()).hasSize(1);
        assertServes(member);
    }

    @Test
    void whatANonMemberSendsReachesNeitherTheRuntimeNorAnEntity() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2, secret(SECRET));
        String id = "victim";
        Counter.Total before = nodes.get(0)
                .region(Counter.class)
                .ask(id, new Counter.Add(5), Counter.Total.class)
                .get(10, TimeUnit.SECONDS);
        ShardingNode home = nodes.stream()
                .filter(n -> n.nodeName().equals(before.node()))
                .findFirst()
                .orElseThrow();
        ClusterGuard homeGuard =
                channels.get(home.nodeName()).getProtocolStack().findProtocol(ClusterGuard.class);
        Address homeAddress = channels.get(home.nodeName()).getAddress();

        raw = outsider(channels.get(home.nodeName()).getClusterName());
        UUID rawAddress = (UUID) raw.getAddress();
        Member rawMember = new Member(rawAddress.getMostSignificantBits(), rawAddress.getLeastSignificantBits(), "raw");
        ProtocolCodec protocol = new ProtocolCodec(1 << 20);
        byte[] add = new JacksonMessageCodec(List.of(Counter.Add.class), 1 << 20).encode(new Counter.Add(1000));
        int shard = EntityType.shardOf(id, 20);
        long refusedBefore = homeGuard.refusedCount();

        // a forged HostShard with a huge epoch, a forged entity message, and frames that claim to be sealed
        raw.send(new BytesMessage(
                homeAddress, protocol.encode(new HostShard("counter", shard, Long.MAX_VALUE / 2, 0, List.of()))));
        raw.send(new BytesMessage(
                homeAddress,
                protocol.encode(new EntityEnvelope("counter", id, shard, 1, rawMember, add, 0, add.length))));
        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            byte[] salt = new byte[GuardHeader.SALT_LENGTH];
            random.nextBytes(salt);
            byte[] body = new byte[random.nextInt(200)];
            random.nextBytes(body);
            raw.send(new BytesMessage(homeAddress, body)
                    .putHeader(
                            ClusterGuard.MAGIC_ID,
                            new GuardHeader(GuardHeader.SEALED, salt, 1 + random.nextInt(1000))));
        }
        Awaitility.await("the home node's guard refused all 22 messages")
                .atMost(Duration.ofSeconds(10))
                .until(() -> homeGuard.refusedCount() >= refusedBefore + 22);

        Counter.Total after = nodes.get(1)
                .region(Counter.class)
                .ask(id, new Counter.Add(1), Counter.Total.class)
                .get(10, TimeUnit.SECONDS);
        assertThat(after.total())
                .as("the forged Add(1000) never reached the entity")
                .isEqualTo(6);
        assertThat(after.node()).as("the forged HostShard moved nothing").isEqualTo(before.node());
        assertThat(home.members()).hasSize(2);
    }

    /** A plain JGroups channel in the same in-JVM cluster, refused at once, then alone with its own view. */
    private static JChannel outsider(String clusterName) throws Exception {
        JChannel ch = new JChannel(TestCluster.STACK).name("raw");
        GMS gms = ch.getProtocolStack().findProtocol(GMS.class);
        gms.setMaxJoinAttempts(1);
        ch.connect(clusterName);
        return ch;
    }

    private void assertServes(ShardingNode node) {
        try {
            Counter.Total t = node.region(Counter.class)
                    .ask("still-" + System.nanoTime(), new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.total()).isEqualTo(1);
        } catch (Exception e) {
            throw new AssertionError("node " + node.nodeName() + " stopped serving", e);
        }
    }

    private List<String> lines(Level level) {
        return log.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }
}
