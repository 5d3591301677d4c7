package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingException;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.crypto.KeyGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster key: derived from the secret and the cluster name, or read from a key store; the replay window; and
 * settings that must be refused before anything starts.
 */
class ClusterKeysTest {

    @TempDir
    Path dir;

    @Test
    void theKeyDependsOnTheSecretAndTheClusterName() {
        byte[] a = ClusterKeys.fromSecret("0123456789abcdef", "c1");
        assertThat(a).hasSize(32).isEqualTo(ClusterKeys.fromSecret("0123456789abcdef", "c1"));
        assertThat(a).isNotEqualTo(ClusterKeys.fromSecret("0123456789abcdeF", "c1"));
        assertThat(a).isNotEqualTo(ClusterKeys.fromSecret("0123456789abcdef", "c2"));
        assertThat(ClusterKeys.clusterKey(JgroupsSettings.defaults(), "c1")).isNull();
    }

    @Test
    void nodesSharingAKeyStoreFormAClusterAndAWrongAliasIsRefused() throws Exception {
        Path store = dir.resolve("cluster.p12");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        KeyGenerator gen = KeyGenerator.getInstance("AES");
        gen.init(256);
        ks.setEntry(
                "sharding",
                new KeyStore.SecretKeyEntry(gen.generateKey()),
                new KeyStore.PasswordProtection("changeit".toCharArray()));
        try (OutputStream out = Files.newOutputStream(store)) {
            ks.store(out, "changeit".toCharArray());
        }
        UnaryOperator<ShardingSettings> keyStore = s -> s.withJgroups(s.jgroups()
                .withKeyStore(
                        new JgroupsSettings.KeyStoreSettings(store.toString(), "changeit", "sharding", "PKCS12")));
        try (TestCluster cluster = TestCluster.of(Counter.type())) {
            List<ShardingNode> nodes = cluster.startNodes(2, keyStore);
            for (int i = 0; i < 10; i++) {
                assertThat(nodes.get(i % 2)
                                .region(Counter.class)
                                .ask("k-" + i, new Counter.Add(1), Counter.Total.class)
                                .get(10, TimeUnit.SECONDS)
                                .total())
                        .isEqualTo(1);
            }
            ShardingNode wrongAlias = ShardingNode.builder(cluster.settings("x")
                            .withJgroups(JgroupsSettings.defaults()
                                    .withKeyStore(new JgroupsSettings.KeyStoreSettings(
                                            store.toString(), "changeit", "nosuch", "PKCS12"))))
                    .entityType(Counter.type())
                    .build();
            assertThatThrownBy(wrongAlias::start)
                    .isInstanceOf(ShardingException.class)
                    .hasMessageContaining("sharding.jgroups.key-store.alias=nosuch");
            ShardingNode wrongPassword = ShardingNode.builder(cluster.settings("y")
                            .withJgroups(JgroupsSettings.defaults()
                                    .withKeyStore(new JgroupsSettings.KeyStoreSettings(
                                            store.toString(), "wrong", "sharding", "PKCS12"))))
                    .entityType(Counter.type())
                    .build();
            assertThatThrownBy(wrongPassword::start)
                    .isInstanceOf(ShardingException.class)
                    .hasMessageContaining("sharding.jgroups.key-store.path=" + store);
        }
    }

    @Test
    void settingsThatCannotWorkAreRefusedWithTheirName() {
        ShardingSettings s = ShardingSettings.defaults();
        assertThatThrownBy(() -> s.withJgroups(s.jgroups().withSecret("short")).validate())
                .hasMessageContaining("sharding.jgroups.secret=******: must be at least 16 characters")
                .hasMessageNotContaining("short");
        assertThatThrownBy(() -> s.withJgroups(s.jgroups()
                                .withSecret("0123456789abcdef")
                                .withKeyStore(new JgroupsSettings.KeyStoreSettings("k.p12", "", "a", "PKCS12")))
                        .validate())
                .hasMessageContaining("set one of them, not both");
        assertThatThrownBy(
                        () -> s.withJgroups(s.jgroups().withMaxFrameSize(1000)).validate())
                .hasMessageContaining("sharding.jgroups.max-frame-size=1000");
        assertThatThrownBy(() -> s.withJgroups(s.jgroups().withFdPort(7800)).validate())
                .hasMessageContaining("sharding.jgroups.fd-port=7800");
        assertThat(s.withJgroups(s.jgroups().withSecret("a very secret value")).toString())
                .doesNotContain("a very secret value");
    }

    @Test
    void theReplayWindowAcceptsEachCounterOnceAndForgetsTheOldest() {
        ReplayWindow w = new ReplayWindow();
        assertThat(w.accept(0)).isFalse();
        assertThat(w.accept(5)).isTrue();
        assertThat(w.accept(5)).isFalse();
        assertThat(w.accept(3)).isTrue(); // late but within the window
        assertThat(w.accept(3)).isFalse();
        assertThat(w.accept(5 + ReplayWindow.SIZE)).isTrue();
        assertThat(w.accept(5)).as("older than the window").isFalse();
        assertThat(w.accept(4 + ReplayWindow.SIZE)).isTrue();
        assertThat(w.accept(5 + ReplayWindow.SIZE)).isFalse();
        assertThat(w.accept(10 * ReplayWindow.SIZE)).isTrue();
        assertThat(w.accept(10 * ReplayWindow.SIZE - 1)).isTrue();
        assertThat(w.accept(10 * ReplayWindow.SIZE - 1)).isFalse();

        ReplayWindow again = new ReplayWindow(100);
        assertThat(again.accept(100)).as("seen before the window was forgotten").isFalse();
        assertThat(again.accept(50)).isFalse();
        assertThat(again.accept(102)).isTrue();
        assertThat(again.accept(101)).isTrue();
        assertThat(again.highest()).isEqualTo(102);
    }
}
