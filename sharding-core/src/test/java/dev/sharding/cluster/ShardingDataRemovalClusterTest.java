package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.ClusterNotStoppedException;
import dev.sharding.ClusterState;
import dev.sharding.EntityTypeSettings;
import dev.sharding.Member;
import dev.sharding.ShardingDataRemoval;
import dev.sharding.ShardingNode;
import dev.sharding.internal.transport.ClusterProbe;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Removing the stored sharding data: refused while any node of the cluster is alive, with nothing changed; once every
 * node has stopped, the remembered entities are gone and the entity state stays, writable by the next cluster. The
 * probe that looks for live members does not disturb a running cluster.
 */
class ShardingDataRemovalClusterTest {

    private static final int SHARDS = 12;

    private static final List<String> IDS =
            IntStream.range(0, 16).mapToObj(i -> "w-" + i).toList();

    private final InMemoryShardingStore store = new InMemoryShardingStore();

    private final List<TestCluster> clusters = new ArrayList<>();

    private TestCluster newCluster() {
        TestCluster cluster = new TestCluster(s -> ShardingNode.builder(s.withEntity(
                        "wallet",
                        EntityTypeSettings.builder().rememberEntities(true).build()))
                .entityType(Wallet.type())
                .store(store));
        clusters.add(cluster);
        return cluster;
    }

    @AfterEach
    void stop() {
        clusters.forEach(TestCluster::close);
    }

    private static Wallet.Reply ask(ShardingNode node, String id, Object message) throws Exception {
        return node.region(Wallet.class).ask(id, message, Wallet.Reply.class).get(10, TimeUnit.SECONDS);
    }

    private Set<String> remembered() {
        Set<String> ids = new HashSet<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            ids.addAll(store.remembered("wallet", shard).join());
        }
        return ids;
    }

    private void awaitRemembered(Set<String> ids) {
        Awaitility.await("remembered ids stored: " + ids)
                .atMost(Duration.ofSeconds(10))
                .until(() -> remembered().containsAll(ids));
    }

    private static Set<String> live(List<ShardingNode> nodes) {
        Set<String> ids = new HashSet<>();
        for (ShardingNode n : nodes) {
            n.localRegion("wallet").entityIds().values().forEach(ids::addAll);
        }
        return ids;
    }

    @Test
    void isRefusedWhileNodesAreAliveAndChangesNothing() throws Exception {
        TestCluster cluster = newCluster();
        List<ShardingNode> nodes = cluster.startNodes(2);
        for (String id : IDS) {
            ask(nodes.get(0), id, new Wallet.Deposit(3));
        }
        awaitRemembered(Set.copyOf(IDS));

        ShardingDataRemoval removal = ShardingDataRemoval.of(cluster.settings("admin"), store);
        assertThatThrownBy(removal::run)
                .isInstanceOfSatisfying(ClusterNotStoppedException.class, e -> {
                    assertThat(e.liveMembers()).containsExactly("n1", "n2");
                    assertThat(e.clusterName())
                            .isEqualTo(cluster.settings("admin").clusterName());
                })
                .hasMessageContaining("members n1, n2 are alive")
                .hasMessageContaining("Nothing was changed");

        assertThat(remembered()).containsExactlyInAnyOrderElementsOf(IDS);
        cluster.awaitConverged();
        assertThat(ask(nodes.get(1), "w-1", new Wallet.Deposit(1)).amount()).isEqualTo(4);
    }

    @Test
    void aProbeLeftAloneByAnUnansweredJoinStillFindsTheLiveNodes() throws Exception {
        TestCluster cluster = new TestCluster(s -> ShardingNode.builder(s)
                .entityType(Wallet.type())
                .store(store)
                .channelCustomizer(channel -> {
                    try {
                        channel.getProtocolStack()
                                .insertProtocol(new DropJoinRequests(), ProtocolStack.Position.BELOW, GMS.class);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
        clusters.add(cluster);
        cluster.startNode();
        await(store.updateRemembered("wallet", 1, List.of("kept"), List.of()));
        // JGroups makes a joiner whose JOIN requests go unanswered a singleton after max_join_attempts
        ShardingDataRemoval removal = ShardingDataRemoval.of(cluster.settings("admin"), store)
                .withChannelCustomizer(channel ->
                        channel.getProtocolStack().<GMS>findProtocol(GMS.class).setMaxJoinAttempts(2));

        assertThatThrownBy(removal::run)
                .isInstanceOfSatisfying(
                        ClusterNotStoppedException.class,
                        e -> assertThat(e.liveMembers()).containsExactly("n1"));
        assertThat(remembered()).containsExactly("kept");
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    /** Drops every JOIN request on its way up to GMS, as an overloaded or hung coordinator would not answer it. */
    private static final class DropJoinRequests extends Protocol {

        private final short gms = ClassConfigurator.getProtocolId(GMS.class);

        private boolean isJoinRequest(Message msg) {
            GMS.GmsHeader header = msg.getHeader(gms);
            return header != null && header.getType() == GMS.GmsHeader.JOIN_REQ;
        }

        @Override
        public Object up(Message msg) {
            return isJoinRequest(msg) ? null : up_prot.up(msg);
        }

        @Override
        public void up(MessageBatch batch) {
            batch.removeIf(this::isJoinRequest, true);
            if (!batch.isEmpty()) {
                up_prot.up(batch);
            }
        }
    }

    @Test
    void aProbeNeitherGetsShardsNorHoldsUpTheClusterNorAFailover() throws Exception {
        TestCluster cluster = newCluster();
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode n1 = nodes.get(0);
        ShardingNode n2 = nodes.get(1);
        try (ClusterProbe probe = ClusterProbe.connect(cluster.settings("admin"), channel -> {})) {
            Member probeMember = probe.self();
            assertThat(probe.name()).startsWith("sharding-admin-probe-");
            assertThat(probe.liveMembers()).containsExactly("n1", "n2");
            Awaitility.await("both nodes see the probe in their view")
                    .atMost(TestCluster.FORMATION)
                    .until(() ->
                            n1.members().contains(probeMember) && n2.members().contains(probeMember));

            // new shards are allocated while the probe is a member, never to it
            for (String id : IDS) {
                assertThat(ask(n2, id, new Wallet.Deposit(2)).node()).isIn("n1", "n2");
            }
            ClusterState state = n1.admin().clusterState(Duration.ofSeconds(10)).get(15, TimeUnit.SECONDS);
            assertThat(state.members()).contains(probeMember);
            assertThat(state.regions().get("wallet"))
                    .extracting(ClusterState.RegionState::member)
                    .containsExactlyInAnyOrder(n1.self(), n2.self());

            // the coordinator's node leaves: the next one asks every member, the probe too, for its shards
            n1.close();
            Awaitility.await("n2's coordinator ready while the probe is still a member")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> n2.isCoordinatorReady() && n2.members().contains(probeMember));
            for (String id : IDS) {
                Wallet.Reply reply = ask(n2, id, new Wallet.Read());
                assertThat(reply.node()).isEqualTo("n2");
                assertThat(reply.amount()).isEqualTo(2);
            }
            assertThat(probe.liveMembers()).containsExactly("n2");
        }
        Awaitility.await("the probe left n2's view")
                .atMost(TestCluster.FORMATION)
                .until(() -> n2.members().equals(List.of(n2.self())));
        assertThat(ask(n2, "after-the-probe", new Wallet.Deposit(1)).amount()).isEqualTo(1);
    }

    @Test
    void afterEveryNodeStoppedRemembersNothingAndKeepsTheStateWritable() throws Exception {
        // two runs of the cluster, so that the entities' rows carry the second allocation's epoch
        TestCluster first = newCluster();
        List<ShardingNode> firstNodes = first.startNodes(2);
        for (String id : IDS) {
            ask(firstNodes.get(0), id, new Wallet.Deposit(5));
        }
        awaitRemembered(Set.copyOf(IDS));
        first.close();
        TestCluster second = newCluster();
        List<ShardingNode> secondNodes = second.startNodes(2);
        Awaitility.await("remembered entities started again")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(secondNodes).containsAll(IDS));
        for (String id : IDS) {
            assertThat(ask(secondNodes.get(1), id, new Wallet.Deposit(5)).amount())
                    .isEqualTo(10);
        }
        second.close();

        ShardingDataRemoval.Result result =
                ShardingDataRemoval.of(second.settings("admin"), store).run();

        assertThat(result.rememberedEntities()).isEqualTo(IDS.size());
        assertThat(result.clusterName()).isEqualTo(second.settings("admin").clusterName());
        assertThat(remembered()).isEmpty();
        TestCluster third = newCluster();
        List<ShardingNode> thirdNodes = third.startNodes(2);
        String probed = IDS.get(3);
        Wallet.Reply reply = ask(thirdNodes.get(0), probed, new Wallet.Deposit(1));
        assertThat(reply.amount())
                .as("state kept, and written under the new allocation's epoch")
                .isEqualTo(11);
        assertThat(live(thirdNodes)).as("entities started after the removal").containsExactly(probed);
        for (String id : IDS) {
            assertThat(ask(thirdNodes.get(1), id, new Wallet.Read()).amount()).isEqualTo(id.equals(probed) ? 11 : 10);
        }
    }
}
