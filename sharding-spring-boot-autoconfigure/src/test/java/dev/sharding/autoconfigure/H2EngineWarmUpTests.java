package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up of H2's engine in a node that uses another node's server. */
class H2EngineWarmUpTests {

    @TempDir
    Path parent;

    @Test
    void opensAWritesAndReadsAThrowawayDatabaseAndLeavesNothingBehind() throws IOException {
        assertThat(H2EngineWarmUp.run(org.h2.Driver.load(), credentials(), parent))
                .isTrue();

        assertThat(contents()).isEmpty();
    }

    @Test
    void theThrowawayDatabaseIsClosedAfterwards() throws SQLException {
        Driver driver = new Recording(org.h2.Driver.load());

        assertThat(H2EngineWarmUp.run(driver, credentials(), parent)).isTrue();

        assertThat(((Recording) driver).opened).isNotNull();
        assertThat(((Recording) driver).opened.isClosed()).isTrue();
        assertThat(((Recording) driver).url).contains(";DB_CLOSE_ON_EXIT=FALSE").doesNotContain("AUTO_SERVER");
    }

    @Test
    void aDriverThatFailsChangesNothingAndLeavesNothingBehind() throws IOException {
        Driver failing = new Recording(null);

        assertThat(H2EngineWarmUp.run(failing, credentials(), parent)).isFalse();

        assertThat(contents()).isEmpty();
    }

    private static Properties credentials() {
        Properties p = new Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        return p;
    }

    private java.util.List<Path> contents() throws IOException {
        try (Stream<Path> files = Files.list(parent)) {
            return files.toList();
        }
    }

    /** A driver that hands out its delegate's connections and keeps the last, or refuses every URL without one. */
    private static final class Recording implements Driver {

        private final Driver delegate;

        Connection opened;

        String url;

        Recording(Driver delegate) {
            this.delegate = delegate;
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            this.url = url;
            if (delegate == null) {
                throw new SQLException("refused for the test");
            }
            opened = delegate.connect(url, info);
            return opened;
        }

        @Override
        public boolean acceptsURL(String url) {
            return true;
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
            return new DriverPropertyInfo[0];
        }

        @Override
        public int getMajorVersion() {
            return 1;
        }

        @Override
        public int getMinorVersion() {
            return 0;
        }

        @Override
        public boolean jdbcCompliant() {
            return false;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }
    }
}
