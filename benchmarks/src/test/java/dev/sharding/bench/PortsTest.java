package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void picksPortsAndTheirFailureDetectionPortsBelowTheEphemeralRange() throws IOException {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int ephemeralStart = Files.isReadable(range)
                ? Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0])
                : 32_768;

        assertThat(Ports.pick(24))
                .hasSize(24)
                .allSatisfy(p -> assertThat(p)
                        .isGreaterThanOrEqualTo(20_000)
                        .isLessThan(Ports.high())
                        .satisfies(q -> {
                            if (ephemeralStart > 22_200) {
                                assertThat(q + Ports.FD_SOCK_OFFSET).isLessThan(ephemeralStart);
                            }
                        }));
    }
}
