package dev.sharding.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HttpConnectionTest {

    private static HttpConnection.ResponseReader reader(String responses) {
        return new HttpConnection.ResponseReader(
                new ByteArrayInputStream(responses.getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Test
    void readsResponsesWithContentLengthOneAfterTheOther() throws IOException {
        HttpConnection.ResponseReader r = reader("HTTP/1.1 200 \r\nContent-Type: application/json\r\n"
                + "Content-Length: 37\r\n\r\n{\"id\":\"a-1\",\"balance\":12,\"node\":\"n1\"}"
                + "HTTP/1.1 503 \r\ncontent-length: 2\r\nRetry-After: 1\r\n\r\n{}");

        HttpConnection.ResponseReader.Response first = r.read(true);
        HttpConnection.ResponseReader.Response second = r.read(false);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.keepAlive()).isTrue();
        assertThat(first.text()).isEqualTo("{\"id\":\"a-1\",\"balance\":12,\"node\":\"n1\"}");
        assertThat(second.status()).isEqualTo(503);
        assertThat(second.body()).isNull();
    }

    @Test
    void readsChunkedBodiesAndTheServersClose() throws IOException {
        HttpConnection.ResponseReader r = reader("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");

        HttpConnection.ResponseReader.Response response = r.read(true);

        assertThat(response.text()).isEqualTo("hello world");
        assertThat(response.keepAlive()).isFalse();
    }

    @Test
    void failsOnAResponseCutShortOrNotHttp() {
        assertThatThrownBy(() ->
                        reader("HTTP/1.1 200 \r\nContent-Length: 10\r\n\r\n{}").read(true))
                .isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> reader("SSH-2.0-OpenSSH\r\n").read(true))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Not an HTTP/1.x status line");
    }

    @Test
    void writesDepositsAndReadsAsTheContractHasThem() {
        HttpConnection c = new HttpConnection("127.0.0.1", 8080, 1_000);

        String deposit = new String(c.deposit("a-7", 42), StandardCharsets.US_ASCII);
        String read = new String(c.balance("a-7"), StandardCharsets.US_ASCII);

        assertThat(deposit)
                .isEqualTo("POST /accounts/a-7/deposit HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"amount\":42}");
        assertThat(read).isEqualTo("GET /accounts/a-7 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
    }
}
