package dev.sharding.autoconfigure;

import dev.sharding.ShardingSettings;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.NestedExceptionUtils;

/**
 * Explains why the sharding node could not join its cluster at startup in terms of the {@code sharding.jgroups.*}
 * property to fix: a stack file that does not exist or does not parse, malformed initial hosts, a bind address that
 * is not of this machine, or no free port.
 */
class JGroupsConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<ShardingStartupException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ShardingStartupException cause) {
        ShardingSettings settings = cause.settings();
        String config = settings.jgroups().config();
        String reason = reason(cause);
        String security = messageContaining(cause, "sharding.jgroups.secret", "sharding.jgroups.key-store");
        if (security != null && security.contains("refused this node")) {
            return new FailureAnalysis(
                    "The sharding node was refused by cluster '" + settings.clusterName() + "': "
                            + security.substring(security.indexOf("member ")),
                    "Give every node of the cluster the same sharding.jgroups.secret (or the same key store, "
                            + "sharding.jgroups.key-store.*), or none to all of them.",
                    cause);
        }
        if (security != null) {
            return new FailureAnalysis(
                    security,
                    "Point sharding.jgroups.key-store.path at a PKCS12 or JCEKS key "
                            + "store holding a secret key under sharding.jgroups.key-store.alias, with its password in "
                            + "sharding.jgroups.key-store.password; or use sharding.jgroups.secret instead.",
                    cause);
        }
        if (config != null) {
            if (findCause(cause, FileNotFoundException.class) != null) {
                return new FailureAnalysis(
                        "The JGroups stack '" + config + "' named by sharding.jgroups.config was "
                                + "found neither as a file nor as a class path resource.",
                        "Set sharding.jgroups.config to the path of a JGroups stack XML file or to a class path "
                                + "resource, or remove it to use the built-in TCP stack configured by the other "
                                + "sharding.jgroups.* properties.",
                        cause);
            }
            return new FailureAnalysis(
                    "The JGroups stack '" + config + "' named by sharding.jgroups.config could not " + "be used: "
                            + reason,
                    "Fix the JGroups stack file named by sharding.jgroups.config (an XML document whose root is "
                            + "<config>), or remove the property to use the built-in TCP stack.",
                    cause);
        }
        if (reason.contains("sharding.jgroups.initial-hosts")) {
            return new FailureAnalysis(
                    "The value '" + settings.jgroups().initialHosts() + "' of sharding.jgroups.initial-hosts "
                            + "is invalid: " + reason,
                    "Set sharding.jgroups.initial-hosts to comma-separated host[port] or host[first..last] entries, "
                            + "for example 127.0.0.1[7800..7809].",
                    cause);
        }
        if (findCause(cause, UnknownHostException.class) != null
                || reason.contains("sharding.jgroups.bind-address")
                || (!isKeyword(settings.jgroups().bindAddress())
                        && !isLocal(settings.jgroups().bindAddress()))) {
            return new FailureAnalysis(
                    "The value '" + settings.jgroups().bindAddress() + "' of sharding.jgroups.bind-address "
                            + "is not an address of this machine: " + reason,
                    "Set sharding.jgroups.bind-address to an IP address or host name of one of this machine's "
                            + "network interfaces, for example 127.0.0.1.",
                    cause);
        }
        if (findCause(cause, BindException.class) != null || reason.contains("jgroups.bind-port")) {
            int last = settings.jgroups().bindPort() + settings.jgroups().portRange();
            return new FailureAnalysis(
                    "No port from " + settings.jgroups().bindPort() + " to " + last + " on "
                            + settings.jgroups().bindAddress() + " was free for the sharding node: " + reason,
                    "Set sharding.jgroups.bind-port to a free port, or raise sharding.jgroups.port-range so that "
                            + "more ports may be tried.",
                    cause);
        }
        return new FailureAnalysis(
                "The sharding node could not join cluster '" + settings.clusterName()
                        + "' with the built-in TCP stack: " + reason,
                "Check sharding.jgroups.bind-address, sharding.jgroups.bind-port, sharding.jgroups.port-range and "
                        + "sharding.jgroups.initial-hosts, or name a JGroups stack of your own with "
                        + "sharding.jgroups.config.",
                cause);
    }

    private static String reason(Throwable cause) {
        Throwable root = NestedExceptionUtils.getMostSpecificCause(cause);
        String message = root.getMessage();
        return message == null ? root.getClass().getName() : message;
    }

    /** The first message in the cause chain that names one of the properties. */
    private static @Nullable String messageContaining(Throwable cause, String... properties) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null) {
                for (String property : properties) {
                    if (message.contains(property)) {
                        return message;
                    }
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /** Whether the bind address is one of JGroups' keywords rather than an address or host name. */
    private static boolean isKeyword(String bindAddress) {
        return bindAddress.matches("(?i)GLOBAL|SITE_LOCAL|LINK_LOCAL|NON_LOOPBACK|LOOPBACK")
                || bindAddress.matches("(?i)(match-interface|match-address|match-host|custom):.*");
    }

    private static boolean isLocal(String bindAddress) {
        try {
            InetAddress address = InetAddress.getByName(bindAddress);
            return address.isAnyLocalAddress()
                    || address.isLoopbackAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (IOException e) {
            return false;
        }
    }
}
