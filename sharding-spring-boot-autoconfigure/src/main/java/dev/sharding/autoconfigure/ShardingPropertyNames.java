package dev.sharding.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;

/**
 * The names of the {@code sharding.*} properties, read from {@link ShardingProperties} and its groups, with {@code *}
 * for a map key (an entity type's name), and the closest of them to a name that is none of them.
 */
final class ShardingPropertyNames {

    /** Stands for any one segment: a map's key. */
    static final String ANY = "*";

    private static final List<String> NAMES =
            List.copyOf(walk(ShardingProperties.class, "sharding", new ArrayList<>()));

    private ShardingPropertyNames() {}

    /** {@return every property's name, {@code *} standing for a map key} */
    static List<String> all() {
        return NAMES;
    }

    private static List<String> walk(Class<?> type, String prefix, List<String> out) {
        for (PropertyDescriptor pd : BeanUtils.getPropertyDescriptors(type)) {
            if (pd.getReadMethod() == null || "class".equals(pd.getName())) {
                continue;
            }
            String name = prefix + "." + kebab(pd.getName());
            Class<?> propertyType = pd.getPropertyType();
            if (Map.class.isAssignableFrom(propertyType)) {
                Class<?> value = ResolvableType.forMethodReturnType(pd.getReadMethod())
                        .asMap()
                        .getGeneric(1)
                        .resolve(Object.class);
                if (group(value)) {
                    walk(value, name + "." + ANY, out);
                } else {
                    out.add(name + "." + ANY);
                }
            } else if (group(propertyType)) {
                walk(propertyType, name, out);
            } else if (pd.getWriteMethod() != null || Collection.class.isAssignableFrom(propertyType)) {
                out.add(name);
            }
        }
        return out;
    }

    /** A group of properties of its own (bound field by field), not a value. */
    private static boolean group(Class<?> type) {
        return type.getPackageName().equals(ShardingProperties.class.getPackageName()) && !type.isEnum();
    }

    private static String kebab(String name) {
        return name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    /**
     * The known property closest to a name that is not one: the same number of segments (a map key matching any
     * segment), with few edits for their length.
     *
     * @param unknown the name, as Spring Boot gives it (lower case, dashed, with indexes)
     * @return the known name with the unknown one's map keys filled in, or {@code null} when none is close
     */
    static @Nullable String closest(String unknown) {
        String[] asked = unknown.replaceAll("\\[[^]]*]", "").split("\\.");
        @Nullable String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String known : NAMES) {
            String[] segments = known.split("\\.");
            if (segments.length != asked.length) {
                continue;
            }
            int distance = 0;
            int differing = 0;
            StringBuilder filled = new StringBuilder();
            for (int i = 0; i < segments.length; i++) {
                String segment = ANY.equals(segments[i]) ? asked[i] : segments[i];
                if (!segment.equals(asked[i])) {
                    distance += edits(segment, asked[i]);
                    differing += Math.max(segment.length(), asked[i].length());
                }
                filled.append(i == 0 ? "" : ".").append(segment);
            }
            if (distance > 0 && distance <= Math.max(2, differing / 3) && distance < bestDistance) {
                best = filled.toString();
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Levenshtein distance. */
    private static int edits(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
