package dev.sharding.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * The JVM's class histogram of live objects ({@code jcmd <pid> GC.class_histogram}, taken in the JVM itself through
 * the DiagnosticCommand MBean; it runs a full collection first), and what two of them say per entity: which classes
 * the heap that a workload's entities retain is made of.
 */
final class ClassHistogram {

    /** A line of the histogram: rank, instances, bytes, class name (and its module). */
    private static final Pattern LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    private ClassHistogram() {}

    /** {@return instances and bytes of the live objects of each class now} */
    static Map<String, long[]> take() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer()
                .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        "gcClassHistogram",
                        new Object[] {new String[0]},
                        new String[] {String[].class.getName()});
        return parse(text);
    }

    static Map<String, long[]> parse(String text) {
        Map<String, long[]> classes = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                classes.merge(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))}, (a, b) ->
                        new long[] {a[0] + b[0], a[1] + b[1]});
            }
        }
        return classes;
    }

    /**
     * The growth from one histogram to another, divided by a number of entities: the {@code top} classes that grew
     * most in bytes, each with its bytes and instances per entity, then the rest together.
     */
    static List<Map<String, Object>> perEntity(
            Map<String, long[]> before, Map<String, long[]> after, long entities, int top) {
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        after.forEach((name, a) -> {
            long[] b = before.getOrDefault(name, new long[2]);
            grown.add(Map.entry(name, new long[] {a[0] - b[0], a[1] - b[1]}));
        });
        before.forEach((name, b) -> {
            if (!after.containsKey(name)) {
                grown.add(Map.entry(name, new long[] {-b[0], -b[1]}));
            }
        });
        grown.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> -e.getValue()[1]));
        List<Map<String, Object>> rows = new ArrayList<>();
        long restBytes = 0;
        long restInstances = 0;
        for (int i = 0; i < grown.size(); i++) {
            long[] g = grown.get(i).getValue();
            if (i < top) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("class", grown.get(i).getKey());
                row.put("bytes_per_entity", Math.round(g[1] * 10.0 / entities) / 10.0);
                row.put("instances_per_entity", Math.round(g[0] * 100.0 / entities) / 100.0);
                rows.add(row);
            } else {
                restBytes += g[1];
                restInstances += g[0];
            }
        }
        Map<String, Object> rest = new LinkedHashMap<>();
        rest.put("class", "(all others)");
        rest.put("bytes_per_entity", Math.round(restBytes * 10.0 / entities) / 10.0);
        rest.put("instances_per_entity", Math.round(restInstances * 100.0 / entities) / 100.0);
        rows.add(rest);
        return rows;
    }
}
