package dev.sharding.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InitialHostsTest {

    @Test
    void expandsRangesAndKeepsSingleEntries() {
        assertThat(InitialHosts.expand("127.0.0.1[7800..7802]"))
                .isEqualTo("127.0.0.1[7800],127.0.0.1[7801],127.0.0.1[7802]");
        assertThat(InitialHosts.expand("127.0.0.1[17800],127.0.0.1[17801], 10.0.0.5[7800]"))
                .isEqualTo("127.0.0.1[17800],127.0.0.1[17801],10.0.0.5[7800]");
    }

    @Test
    void rejectsWhatIsNotHostAndPort() {
        assertThatThrownBy(() -> InitialHosts.expand("localhost:7800"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sharding.jgroups.initial-hosts")
                .hasMessageContaining("localhost:7800");
        assertThatThrownBy(() -> InitialHosts.expand("h[7802..7800]")).hasMessageContaining("ascending");
        assertThatThrownBy(() -> InitialHosts.expand("h[1..99999]")).hasMessageContaining("ascending");
        assertThatThrownBy(() -> InitialHosts.expand(" , ")).hasMessageContaining("no host");
    }

    @Test
    void coversAPortOnlyWhenAnEntryOfTheSameHostListsIt() {
        assertThat(InitialHosts.covers("127.0.0.1[7800..7809]", "127.0.0.1", 7805))
                .isTrue();
        assertThat(InitialHosts.covers("127.0.0.1[7800..7809]", "127.0.0.1", 7900))
                .isFalse();
        assertThat(InitialHosts.covers("localhost[7900]", "127.0.0.1", 7900)).isTrue();
        assertThat(InitialHosts.covers("10.0.0.5[7800],127.0.0.1[7900]", "127.0.0.1", 7800))
                .isFalse();
    }
}
