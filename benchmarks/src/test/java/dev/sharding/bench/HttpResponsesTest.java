package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HttpResponsesTest {

    private static final String TWO = "HTTP/1.1 200 \r\nContent-Length: 5\r\n\r\nhello"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n";

    @Test
    void findsTheEndOfAResponseOnlyOnceAllOfItArrived() {
        byte[] all = TWO.getBytes(StandardCharsets.ISO_8859_1);
        int first = TWO.indexOf("HTTP/1.1 200 OK");

        for (int len = 0; len < first; len++) {
            assertThat(HttpResponses.parse(all, 0, len))
                    .as("first %d bytes", len)
                    .isNull();
        }
        HttpResponses.Parsed one = HttpResponses.parse(all, 0, all.length);
        assertThat(one.length()).isEqualTo(first);
        assertThat(new String(one.body(all, 0), StandardCharsets.ISO_8859_1)).isEqualTo("hello");

        for (int len = 0; len < all.length - first; len++) {
            assertThat(HttpResponses.parse(all, first, len))
                    .as("second, %d bytes", len)
                    .isNull();
        }
        HttpResponses.Parsed two = HttpResponses.parse(all, first, all.length - first);
        assertThat(two.length()).isEqualTo(all.length - first);
        assertThat(two.keepAlive()).isFalse();
        assertThat(new String(two.body(all, first), StandardCharsets.ISO_8859_1))
                .isEqualTo("abc");
    }

    @Test
    void refusesWhatIsNotAnHttpResponseWithALength() {
        byte[] ssh = "SSH-2.0-OpenSSH\r\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] endless = "HTTP/1.1 200 \r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

        assertThatThrownBy(() -> HttpResponses.parse(ssh, 0, ssh.length)).hasMessageContaining("Not an HTTP/1.x");
        assertThatThrownBy(() -> HttpResponses.parse(endless, 0, endless.length))
                .hasMessageContaining("without length");
    }
}
