package dev.sharding.internal.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands the initial-hosts setting: {@code host[port]} entries as TCPPING takes them, plus {@code host[a..b]} for
 * a range of ports.
 */
public final class InitialHosts {

    private static final Pattern ENTRY = Pattern.compile("\\s*([^\\[\\],\\s]+)\\[(\\d+)(?:\\.\\.(\\d+))?]\\s*");

    private static final int MAX_RANGE = 1000;

    private InitialHosts() {
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
            throw new IllegalArgumentException("Invalid setting sharding.jgroups.initial-hosts=" + value
                    + ": no host");
        }
        return String.join(",", out);
    }
}
