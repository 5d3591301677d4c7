package dev.sharding.internal.transport;

import dev.sharding.ShardingSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expands the initial-hosts setting: {@code host[port]} entries as TCPPING takes them, plus {@code host[a..b]} for
 * a range of ports.
 */
public final class InitialHosts {

    private static final Logger log = LoggerFactory.getLogger(InitialHosts.class);

    private static final Pattern ENTRY = Pattern.compile("\\s*([^\\[\\],\\s]+)\\[(\\d+)(?:\\.\\.(\\d+))?]\\s*");

    private static final int MAX_RANGE = 1000;

    private InitialHosts() {}

    /**
     * A node whose own address the initial hosts do not list is not found by the nodes that start after it: with only
     * the bind port changed, two nodes each form a cluster of their own, both healthy, over one database.
     */
    static boolean warnIfNotListed(ShardingSettings settings, int port) {
        if (covers(settings.jgroups().initialHosts(), settings.jgroups().bindAddress(), port)) {
            return false;
        }
        log.warn(
                "This node listens on {}:{}, which sharding.jgroups.initial-hosts={} does not list: nodes started "
                        + "with these settings will not find it, and may form clusters of their own over the same store. "
                        + "List every node's address and port (or port range) in sharding.jgroups.initial-hosts, for "
                        + "example {}[{}..{}].",
                settings.jgroups().bindAddress(),
                port,
                settings.jgroups().initialHosts(),
                settings.jgroups().bindAddress(),
                settings.jgroups().bindPort(),
                settings.jgroups().bindPort() + Math.min(settings.jgroups().portRange(), 9));
        return true;
    }

    /**
     * Whether the initial hosts list an address and port, so that nodes started with them find a node listening
     * there. A host matches the address when it is the same text or resolves to the same address.
     *
     * @param value the setting
     * @param address the node's bind address
     * @param port the port the node listens on
     * @return whether some entry names that port on that address
     * @throws IllegalArgumentException if the setting is malformed
     */
    public static boolean covers(String value, String address, int port) {
        for (String entry : expand(value).split(",")) {
            int open = entry.lastIndexOf('[');
            String host = entry.substring(0, open);
            int entryPort = Integer.parseInt(entry.substring(open + 1, entry.length() - 1));
            if (entryPort == port && sameHost(host, address)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameHost(String host, String address) {
        if (host.equalsIgnoreCase(address)) {
            return true;
        }
        try {
            InetAddress a = InetAddress.getByName(host);
            InetAddress b = InetAddress.getByName(address);
            return a.equals(b) || (a.isLoopbackAddress() && b.isLoopbackAddress());
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * Expands ranges into single entries.
     *
     * @param value the setting, e.g. {@code 127.0.0.1[7800..7802],10.0.0.5[7800]}
     * @return the TCPPING list, e.g. {@code 127.0.0.1[7800],127.0.0.1[7801],127.0.0.1[7802],10.0.0.5[7800]}
     * @throws IllegalArgumentException if an entry is not {@code host[port]} or {@code host[first..last]}
     */
    public static String expand(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Matcher m = ENTRY.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("Invalid setting sharding.jgroups.initial-hosts=" + value
                        + ": entry '" + part.trim() + "' is not host[port] or host[first..last]");
            }
            int first = Integer.parseInt(m.group(2));
            int last = m.group(3) == null ? first : Integer.parseInt(m.group(3));
            if (first < 1 || last > 65535 || last < first || last - first > MAX_RANGE) {
                throw new IllegalArgumentException("Invalid setting sharding.jgroups.initial-hosts=" + value
                        + ": port range in '" + part.trim() + "' must be ascending ports of at most " + MAX_RANGE);
            }
            for (int p = first; p <= last; p++) {
                out.add(m.group(1) + "[" + p + "]");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("Invalid setting sharding.jgroups.initial-hosts=" + value + ": no host");
        }
        return String.join(",", out);
    }
}
