package dev.sharding.internal.coordinator;

import java.util.Comparator;

/**
 * Application versions ({@code sharding.app-version}) in order: dot-separated parts compared as numbers where both
 * are numbers ({@code 1.10 > 1.9}) and as text otherwise, missing parts as zero ({@code 1.2 = 1.2.0}); a version
 * with a qualifier after {@code -} comes before the same version without ({@code 2.0.0-RC1 < 2.0.0}); build
 * metadata after {@code +} is ignored; the empty version (unversioned) comes before every other.
 */
final class AppVersion {

    static final Comparator<String> ORDER = AppVersion::compare;

    private AppVersion() {}

    static int compare(String a, String b) {
        if (a.equals(b)) {
            return 0;
        }
        if (a.isEmpty() || b.isEmpty()) {
            return a.isEmpty() ? -1 : 1;
        }
        String[] x = split(a);
        String[] y = split(b);
        int c = compareParts(x[0], y[0]);
        if (c != 0) {
            return c;
        }
        if (x[1].isEmpty() != y[1].isEmpty()) {
            return x[1].isEmpty() ? 1 : -1; // a release comes after its pre-releases
        }
        return compareParts(x[1], y[1]);
    }

    /** The release part and the qualifier, without build metadata. */
    private static String[] split(String v) {
        int plus = v.indexOf('+');
        String s = plus < 0 ? v : v.substring(0, plus);
        int dash = s.indexOf('-');
        return dash < 0 ? new String[] {s, ""} : new String[] {s.substring(0, dash), s.substring(dash + 1)};
    }

    private static int compareParts(String a, String b) {
        String[] x = a.isEmpty() ? new String[0] : a.split("[.\\-]");
        String[] y = b.isEmpty() ? new String[0] : b.split("[.\\-]");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            String p = i < x.length ? x[i] : "0";
            String q = i < y.length ? y[i] : "0";
            int c = comparePart(p, q);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static int comparePart(String p, String q) {
        boolean pn = isNumber(p);
        boolean qn = isNumber(q);
        if (pn && qn) {
            String a = stripZeros(p);
            String b = stripZeros(q);
            return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
        }
        if (pn != qn) {
            return pn ? -1 : 1; // a number before text: 1.0.1 < 1.0.a
        }
        return p.compareTo(q);
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static String stripZeros(String s) {
        int i = 0;
        while (i < s.length() - 1 && s.charAt(i) == '0') {
            i++;
        }
        return s.substring(i);
    }
}
