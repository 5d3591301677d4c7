package dev.sharding.sample;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A headless Chromium from the operating system's packages ({@code /usr/bin/chromium}), driven over the Chrome
 * DevTools Protocol on a {@code java.net.http} WebSocket: no driver, no browser download, no dependency. One page,
 * opened at start; the test evaluates JavaScript in it and takes screenshots. {@link #close()} stops the browser
 * and every process it started, and deletes its fresh profile.
 */
final class HeadlessChromium implements AutoCloseable {

    /** Where Debian's chromium package puts the browser. */
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private static final Duration START = Duration.ofSeconds(60);

    private static final Duration COMMAND = Duration.ofSeconds(30);

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Process process;

    private final Path profile;

    private final WebSocket socket;

    private final AtomicInteger ids = new AtomicInteger();

    private final Map<Integer, CompletableFuture<JsonNode>> answers = new ConcurrentHashMap<>();

    /**
     * Skips the calling test (a JUnit assumption) when Chromium is not installed.
     */
    static void assumeInstalled() {
        assumeTrue(
                Files.isExecutable(CHROMIUM),
                "Chromium is not installed at " + CHROMIUM + " (Debian: apt-get install chromium); the browser test"
                        + " is skipped");
    }

    /**
     * Starts the browser on a page.
     *
     * @param url the page to open
     * @param width the window's width in pixels
     * @param height the window's height in pixels
     * @param log where the browser's own output goes
     */
    HeadlessChromium(String url, int width, int height, Path log) throws IOException, InterruptedException {
        this.profile = Files.createTempDirectory("sharding-chromium-");
        Files.createDirectories(log.toAbsolutePath().getParent());
        this.process = new ProcessBuilder(
                        CHROMIUM.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--hide-scrollbars",
                        "--user-data-dir=" + profile,
                        "--remote-debugging-address=127.0.0.1",
                        "--remote-debugging-port=0",
                        "--window-size=" + width + "," + height,
                        url)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            this.socket = connect(url, log);
        } catch (RuntimeException | IOException | InterruptedException e) {
            stopBrowser();
            throw e;
        }
    }

    /** Finds the debugging port the browser chose, then the page, and connects to the page. */
    private WebSocket connect(String url, Path log) throws IOException, InterruptedException {
        Path portFile = profile.resolve("DevToolsActivePort");
        Awaitility.await("Chromium started and wrote its debugging port (its output: " + log + ")")
                .atMost(START)
                .pollInterval(Duration.ofMillis(100))
                .failFast("Chromium exited; its output is in " + log, () -> !process.isAlive())
                .until(() -> Files.isRegularFile(portFile)
                        && Files.readString(portFile).lines().count() >= 1);
        int port = Integer.parseInt(
                Files.readString(portFile).lines().findFirst().orElseThrow().trim());
        HttpClient http = HttpClient.newHttpClient();
        String[] pageSocket = new String[1];
        Awaitility.await("the page " + url + " listed by Chromium")
                .atMost(START)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    HttpResponse<String> list = http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    for (JsonNode target : JSON.readTree(list.body())) {
                        if ("page".equals(target.path("type").asString())) {
                            pageSocket[0] = target.path("webSocketDebuggerUrl").asString();
                            return true;
                        }
                    }
                    return false;
                });
        return http.newWebSocketBuilder()
                .buildAsync(URI.create(pageSocket[0]), new Listener())
                .join();
    }

    /**
     * Evaluates a JavaScript expression in the page.
     *
     * @param expression the expression; its value must be a string, a number or a boolean
     * @return the value, as text
     */
    String evaluate(String expression) {
        ObjectNode params = JSON.createObjectNode();
        params.put("expression", expression);
        params.put("returnByValue", true);
        JsonNode result = command("Runtime.evaluate", params);
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException("The page failed to evaluate " + expression + ": " + result);
        }
        return result.path("result").path("value").asString("");
    }

    /**
     * Writes a PNG of the whole page, however long.
     *
     * @param png the file to write
     * @param width the page's width in pixels
     */
    void screenshot(Path png, int width) throws IOException {
        int height = (int) Math.ceil(Double.parseDouble(evaluate("String(document.documentElement.scrollHeight)")));
        ObjectNode metrics = JSON.createObjectNode();
        metrics.put("width", width);
        metrics.put("height", height);
        metrics.put("deviceScaleFactor", 1);
        metrics.put("mobile", false);
        command("Emulation.setDeviceMetricsOverride", metrics);
        ObjectNode params = JSON.createObjectNode();
        params.put("format", "png");
        JsonNode shot = command("Page.captureScreenshot", params);
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.write(png, Base64.getDecoder().decode(shot.path("data").asString()));
    }

    private JsonNode command(String method, ObjectNode params) {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        answers.put(id, answer);
        ObjectNode message = JSON.createObjectNode();
        message.put("id", id);
        message.put("method", method);
        message.set("params", params);
        try {
            socket.sendText(JSON.writeValueAsString(message), true).get(COMMAND.toSeconds(), TimeUnit.SECONDS);
            JsonNode reply = answer.get(COMMAND.toSeconds(), TimeUnit.SECONDS);
            if (reply.has("error")) {
                throw new IllegalStateException(method + " failed: " + reply.get("error"));
            }
            return reply.path("result");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted during " + method, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(method + " got no answer from Chromium within " + COMMAND, e);
        } finally {
            answers.remove(id);
        }
    }

    /** Stops the browser and every process it started, and deletes its profile. */
    @Override
    public void close() {
        socket.abort();
        stopBrowser();
    }

    private void stopBrowser() {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        children.forEach(ProcessHandle::destroy);
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (ProcessHandle child : children) {
                child.onExit().get(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            children.forEach(ProcessHandle::destroyForcibly);
        }
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete the browser profile " + profile, e);
        }
    }

    /** Collects each text message (which may come in parts) and completes the command it answers. */
    private final class Listener implements WebSocket.Listener {

        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                JsonNode message = JSON.readTree(text.toString());
                text.setLength(0);
                CompletableFuture<JsonNode> answer =
                        message.has("id") ? answers.get(message.get("id").asInt()) : null;
                if (answer != null) {
                    answer.complete(message);
                }
            }
            webSocket.request(1);
            return null;
        }
    }
}
