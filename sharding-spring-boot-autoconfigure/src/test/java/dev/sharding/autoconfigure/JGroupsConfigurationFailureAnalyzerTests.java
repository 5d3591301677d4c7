package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import java.io.IOException;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextException;

/**
 * The analysis of each kind of JGroups configuration failure, from the failures the core reports (the end-to-end
 * cases, a missing stack and malformed initial hosts, are in {@link ShardingAutoConfigurationTests}).
 */
class JGroupsConfigurationFailureAnalyzerTests {

    private final JGroupsConfigurationFailureAnalyzer analyzer = new JGroupsConfigurationFailureAnalyzer();

    private static Throwable startupFailure(ShardingSettings settings, Throwable cause) {
        ShardingException core = new ShardingException("Cannot join cluster: " + cause.getMessage(), cause);
        return new ApplicationContextException(
                "Failed to start bean 'shardingLifecycle'", new ShardingStartupException(settings, core));
    }

    @Test
    void stackThatDoesNotParseNamesTheConfigProperty() {
        ShardingSettings settings = ShardingSettings.defaults()
                .withJgroups(JgroupsSettings.defaults().withConfig("broken.xml"));
        FailureAnalysis analysis = this.analyzer.analyze(startupFailure(
                settings, new IOException("JGRP000004: parsing failure; the XML document is not correct")));
        assertThat(analysis.getDescription()).contains("'broken.xml'", "sharding.jgroups.config", "parsing failure");
        assertThat(analysis.getAction()).contains("sharding.jgroups.config", "<config>");
    }

    @Test
    void unknownBindAddressNamesTheBindAddressProperty() {
        ShardingSettings settings = ShardingSettings.defaults()
                .withJgroups(
                        JgroupsSettings.defaults().withNetwork("no-such-host.invalid", 7800, 10, "127.0.0.1[7800]"));
        FailureAnalysis analysis = this.analyzer.analyze(
                startupFailure(settings, new UnknownHostException("no-such-host.invalid: Name or service not known")));
        assertThat(analysis.getDescription()).contains("'no-such-host.invalid'", "sharding.jgroups.bind-address");
        assertThat(analysis.getAction()).contains("sharding.jgroups.bind-address");
    }

    @Test
    void bindAddressOfAnotherMachineNamesTheBindAddressProperty() {
        ShardingSettings settings = ShardingSettings.defaults()
                .withJgroups(JgroupsSettings.defaults().withNetwork("192.0.2.1", 7800, 5, "127.0.0.1[7800]"));
        FailureAnalysis analysis = this.analyzer.analyze(
                startupFailure(
                        settings,
                        new ShardingException(
                                "No free port from 7800 to 7805 on 192.0.2.1 (settings jgroups.bind-port and jgroups.port-range)")));
        assertThat(analysis.getDescription()).contains("'192.0.2.1'", "sharding.jgroups.bind-address");
    }

    @Test
    void noFreePortNamesTheBindPortAndPortRangeProperties() {
        ShardingSettings settings = ShardingSettings.defaults()
                .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", 7800, 5, "127.0.0.1[7800]"));
        FailureAnalysis analysis = this.analyzer.analyze(
                startupFailure(
                        settings,
                        new ShardingException(
                                "No free port from 7800 to 7805 on 127.0.0.1 (settings jgroups.bind-port and jgroups.port-range)")));
        assertThat(analysis.getDescription()).contains("7800 to 7805");
        assertThat(analysis.getAction()).contains("sharding.jgroups.bind-port", "sharding.jgroups.port-range");
    }

    @Test
    void otherFailuresOfTheBuiltInStackListItsProperties() {
        FailureAnalysis analysis = this.analyzer.analyze(
                startupFailure(ShardingSettings.defaults(), new IllegalStateException("something else")));
        assertThat(analysis.getDescription()).contains("built-in TCP stack", "something else");
        assertThat(analysis.getAction())
                .contains("sharding.jgroups.bind-address", "sharding.jgroups.initial-hosts", "sharding.jgroups.config");
    }

    @Test
    void aRefusalForAnotherSecretSaysToGiveEveryNodeTheSameSecret() {
        FailureAnalysis analysis = this.analyzer.analyze(startupFailure(
                ShardingSettings.defaults()
                        .withJgroups(JgroupsSettings.defaults().withConfig("my-stack.xml")),
                new SecurityException("member n1 at 10.0.0.5:7800 of cluster "
                        + "'sharding' refused this node: the cluster has a different sharding.jgroups.secret than this"
                        + " node")));
        assertThat(analysis.getDescription())
                .contains(
                        "refused by cluster 'sharding'",
                        "member n1 at 10.0.0.5:7800",
                        "different sharding.jgroups.secret");
        assertThat(analysis.getAction()).contains("the same sharding.jgroups.secret");
    }

    @Test
    void anUnreadableKeyStoreNamesTheKeyStoreProperties() {
        FailureAnalysis analysis = this.analyzer.analyze(startupFailure(
                ShardingSettings.defaults(),
                new ShardingException(
                        "Cannot read the cluster key from sharding.jgroups.key-store.path=/k.p12 (type"
                                + " PKCS12): /k.p12",
                        new java.nio.file.NoSuchFileException("/k.p12"))));
        assertThat(analysis.getDescription()).contains("sharding.jgroups.key-store.path=/k.p12");
        assertThat(analysis.getAction()).contains("sharding.jgroups.key-store.path", "sharding.jgroups.secret");
    }

    @Test
    void aBindAddressKeywordIsNotTakenForAnotherMachinesAddress() {
        ShardingSettings settings = ShardingSettings.defaults()
                .withJgroups(JgroupsSettings.defaults().withNetwork("SITE_LOCAL", 7800, 5, "127.0.0.1[7800]"));
        FailureAnalysis analysis =
                this.analyzer.analyze(startupFailure(settings, new IllegalStateException("something else")));
        assertThat(analysis.getDescription()).contains("built-in TCP stack", "something else");
        FailureAnalysis noMatch = this.analyzer.analyze(startupFailure(
                settings.withJgroups(
                        settings.jgroups().withNetwork("match-interface:nosuch9", 7800, 5, "127.0.0.1[7800]")),
                new ShardingException(
                        "Invalid setting sharding.jgroups.bind-address=match-interface:nosuch9: no address of this machine"
                                + " matches it")));
        assertThat(noMatch.getDescription()).contains("'match-interface:nosuch9'", "sharding.jgroups.bind-address");
    }

    @Test
    void otherStartupFailuresAreLeftToOtherAnalyzers() {
        assertThat(this.analyzer.analyze(
                        new ApplicationContextException("unrelated", new ShardingException("not a startup failure"))))
                .isNull();
    }
}
