package dev.sharding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShardingSettingsTest {

    @Test
    void defaultsAreValid() {
        ShardingSettings s = ShardingSettings.defaults().validate();
        assertThat(s.numberOfShards()).isEqualTo(100);
        assertThat(s.askTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.bufferSize()).isEqualTo(100_000);
        assertThat(s.jgroups().bindPort()).isEqualTo(7800);
        assertThat(s.jgroups().initialHosts()).isEqualTo("127.0.0.1[7800..7809]");
        assertThat(s.rebalance().interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.rebalance().absoluteLimit()).isEqualTo(20);
        assertThat(s.rebalance().relativeLimit()).isEqualTo(0.1);
        assertThat(s.handoffTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.entity("any")).isEqualTo(EntityTypeSettings.DEFAULT);
    }

    @Test
    void validationNamesTheSettingItsValueAndTheRule() {
        assertThatThrownBy(() -> ShardingSettings.defaults().withBufferSize(0).validate())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid setting sharding.buffer-size=0: must be positive");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withAskTimeout(Duration.ZERO)
                        .validate())
                .hasMessageContaining("sharding.ask-timeout=PT0S");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withRebalance(RebalanceSettings.DEFAULT.withRelativeLimit(1.5))
                        .validate())
                .hasMessageContaining("sharding.rebalance.relative-limit=1.5");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", 70000, 0, "h[1]"))
                        .validate())
                .hasMessageContaining("sharding.jgroups.bind-port=70000");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withEntity(
                                "cart",
                                EntityTypeSettings.builder().numberOfShards(-1).build())
                        .validate())
                .hasMessageContaining("sharding.entities.cart.number-of-shards=-1");
        assertThat(ShardingSettings.defaults()
                        .withMailboxSize(ShardingSettings.MAX_MAILBOX_SIZE)
                        .validate()
                        .mailboxSize())
                .isEqualTo(268_435_456);
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withMailboxSize(ShardingSettings.MAX_MAILBOX_SIZE + 1)
                        .validate())
                .hasMessage("Invalid setting sharding.mailbox-size=268435457: must be between 1 and 268435456");
    }

    @Test
    void withMethodsChangeOneSettingAndEntitiesAreCopied() {
        Map<String, EntityTypeSettings> map = new HashMap<>();
        ShardingSettings s = new ShardingSettings(
                "c",
                "n",
                10,
                Duration.ofSeconds(1),
                5,
                1 << 20,
                100,
                Duration.ofMillis(500),
                Duration.ofSeconds(1),
                2048,
                Duration.ofSeconds(60),
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                RebalanceSettings.DEFAULT,
                PassivationSettings.DEFAULT,
                JgroupsSettings.defaults(),
                dev.sharding.SplitBrainSettings.DEFAULT,
                MemberSettings.DEFAULT,
                BackpressureSettings.DEFAULT,
                map);
        map.put(
                "x",
                EntityTypeSettings.builder().numberOfShards(3).proxyOnly(true).build());
        assertThat(s.entities()).isEmpty();
        ShardingSettings t = s.withEntity(
                "x",
                EntityTypeSettings.builder().numberOfShards(3).proxyOnly(true).build());
        assertThat(t.entity("x").proxyOnly()).isTrue();
        assertThat(t.withClusterName("d").clusterName()).isEqualTo("d");
        assertThat(t.withClusterName("d").entity("x").numberOfShards()).isEqualTo(3);
    }

    @Test
    void buildersStartFromTheDefaultsAndToBuilderKeepsEverySetting() {
        assertThat(ShardingSettings.builder().build()).isEqualTo(ShardingSettings.defaults());
        assertThat(EntityTypeSettings.builder().build()).isEqualTo(EntityTypeSettings.DEFAULT);
        EntityTypeSettings type = EntityTypeSettings.builder()
                .numberOfShards(7)
                .proxyOnly(true)
                .idleTimeout(Duration.ofSeconds(3))
                .rememberEntities(true)
                .role("backend")
                .appliedMessages(new AppliedMessageWindow(5, Duration.ofMinutes(1)))
                .passivation(PassivationStrategy.LEAST_FREQUENTLY_USED)
                .build();
        assertThat(type.toBuilder().build()).isEqualTo(type);
        ShardingSettings s = ShardingSettings.builder()
                .clusterName("c")
                .rebalance(RebalanceSettings.DEFAULT.withInterval(Duration.ofSeconds(30)))
                .passivation(PassivationSettings.DEFAULT.withIdleTimeout(Duration.ZERO))
                .jgroups(JgroupsSettings.defaults().withNetwork("127.0.0.2", 9000, 3, "127.0.0.2[9000]"))
                .entity("x", type)
                .build();
        assertThat(s.toBuilder().build()).isEqualTo(s);
        assertThat(s.idleTimeout("other")).isZero();
        assertThat(s.idleTimeout("x")).as("remembered entities never idle").isZero();
    }

    @Test
    void eachGroupNamesItsSettingsAfterTheirProperties() {
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withRebalance(RebalanceSettings.DEFAULT.withInterval(Duration.ZERO))
                        .validate())
                .hasMessageContaining("sharding.rebalance-interval=PT0S");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withPassivation(PassivationSettings.DEFAULT.withActiveEntityLimit(0))
                        .validate())
                .hasMessageContaining("sharding.passivation.active-entity-limit=0");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", 7800, 10, " "))
                        .validate())
                .hasMessageContaining("sharding.jgroups.initial-hosts");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withEntity(
                                "cart",
                                EntityTypeSettings.builder()
                                        .idleTimeout(Duration.ofSeconds(-1))
                                        .build())
                        .validate())
                .hasMessageContaining("sharding.entities.cart.idle-timeout=PT-1S");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withEntity(
                                "cart",
                                EntityTypeSettings.builder()
                                        .activeEntityLimit(-1)
                                        .build())
                        .validate())
                .hasMessageContaining("sharding.entities.cart.passivation.active-entity-limit=-1");
    }

    @Test
    void backpressureSettingsAreCheckedAndNamed() {
        BackpressureSettings d = BackpressureSettings.DEFAULT;
        assertThat(ShardingSettings.defaults().backpressure()).isEqualTo(d);
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withBackpressure(d.withMaxWait(Duration.ofMillis(-1)))
                        .validate())
                .hasMessageContaining("sharding.backpressure.max-wait");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withBackpressure(d.withMaxQueuedBytes(1000))
                        .validate())
                .hasMessageContaining("sharding.backpressure.max-queued-bytes=1000");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withBackpressure(d.withSuspectAfter(Duration.ofMillis(10)))
                        .validate())
                .hasMessageContaining("sharding.backpressure.suspect-after");
        assertThat(ShardingSettings.defaults()
                        .withBackpressure(d.withSuspectAfter(Duration.ZERO).withMaxWait(Duration.ZERO))
                        .validate()
                        .backpressure()
                        .suspectAfter())
                .isZero();
    }

    @Test
    void memberSettingsAreCheckedAndNamed() {
        ShardingSettings ok = ShardingSettings.defaults()
                .withMember(new MemberSettings(java.util.Set.of("web", "backend"), "1.4.2-RC1", 3))
                .withEntity("cart", EntityTypeSettings.builder().role("backend").build())
                .validate();
        assertThat(ok.member().hasRole("backend")).isTrue();
        assertThat(ok.member().hasRole("batch")).isFalse();
        assertThat(ok.member().hasRole(null)).isTrue();
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withMember(MemberSettings.DEFAULT.withMinNrOfMembers(0))
                        .validate())
                .hasMessageContaining("sharding.min-nr-of-members=0");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withMember(MemberSettings.DEFAULT.withRoles(java.util.Set.of("has space")))
                        .validate())
                .hasMessageContaining("sharding.roles");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withMember(MemberSettings.DEFAULT.withAppVersion("1.0 beta"))
                        .validate())
                .hasMessageContaining("sharding.app-version");
        assertThatThrownBy(() -> ShardingSettings.defaults()
                        .withEntity(
                                "cart", EntityTypeSettings.builder().role("a/b").build())
                        .validate())
                .hasMessageContaining("sharding.entities.cart.role");
    }

    @Test
    void shardIdIsFloorModOfTheHashCodeAndStable() {
        assertThat(EntityType.shardOf("e-1", 100)).isEqualTo(Math.floorMod("e-1".hashCode(), 100));
        String negative = "polygenelubricants"; // hashCode is Integer.MIN_VALUE
        assertThat(negative.hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(EntityType.shardOf(negative, 100)).isBetween(0, 99);
        for (int i = 0; i < 10_000; i++) {
            assertThat(EntityType.shardOf("id-" + i, 7)).isBetween(0, 6);
        }
    }
}
