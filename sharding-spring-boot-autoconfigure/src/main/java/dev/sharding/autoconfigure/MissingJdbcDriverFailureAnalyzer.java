package dev.sharding.autoconfigure;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Names the JDBC driver missing from the class path, and the dependency that brings it, when the application's
 * {@code DataSource} cannot load the driver its {@code spring.datasource.url} needs. Spring Boot reports that only as
 * the connection pool's exception chain; the sharding store cannot start without the database.
 */
class MissingJdbcDriverFailureAnalyzer implements FailureAnalyzer {

    /** HikariCP, given the driver class Spring Boot derived from the URL. */
    private static final Pattern DRIVER_CLASS = Pattern.compile("Failed to load driver class ([\\w.$]+)");

    /** {@code java.sql.DriverManager}, given only the URL. */
    private static final Pattern DRIVER_FOR_URL = Pattern.compile("No suitable driver found for (jdbc:[^\\s]+)");

    /** The dependencies of the drivers of the databases the store supports, by driver class. */
    private static final Map<String, String> BY_CLASS =
            Map.of("org.postgresql.Driver", "org.postgresql:postgresql", "org.h2.Driver", "com.h2database:h2");

    /** The same, by URL prefix. */
    private static final Map<String, String> BY_URL =
            Map.of("jdbc:postgresql:", "org.postgresql:postgresql", "jdbc:h2:", "com.h2database:h2");

    private static final String SUPPORTED =
            "the sharding store runs on PostgreSQL (driver org.postgresql:postgresql)" + " and H2 (com.h2database:h2)";

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 64; t = t.getCause(), depth++) {
            String message = t.getMessage();
            if (message != null) {
                Matcher byClass = DRIVER_CLASS.matcher(message);
                if (byClass.find()) {
                    String driver = byClass.group(1);
                    return analysis("The JDBC driver " + driver, BY_CLASS.get(driver), failure);
                }
                Matcher byUrl = DRIVER_FOR_URL.matcher(message);
                if (byUrl.find()) {
                    String url = byUrl.group(1);
                    return analysis(
                            "No JDBC driver for " + url + " (spring.datasource.url)", dependencyOf(url), failure);
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static @Nullable String dependencyOf(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        for (Map.Entry<String, String> e : BY_URL.entrySet()) {
            if (lower.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return null;
    }

    private static FailureAnalysis analysis(String what, @Nullable String dependency, Throwable failure) {
        String action = dependency == null
                ? "Add the JDBC driver of the database that spring.datasource.url names to the application's"
                        + " dependencies (runtime scope); " + SUPPORTED + "."
                : "Add the dependency " + dependency + " to the application's dependencies (runtime scope).";
        return new FailureAnalysis(
                what + " is not on the class path, so the application's DataSource, which the sharding store keeps its"
                        + " data in, cannot connect.",
                action,
                failure);
    }
}
