package dev.sharding.autoconfigure.dashboard;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Serves the dashboard page under {@code /sharding-dashboard/}: three static files from the jar (the page, its style
 * and its script; no build step, nothing from elsewhere) and {@code config.json}, which tells the page where the
 * sharding actuator endpoint is and how often to read it, or why it cannot be read. The page reads the endpoint's
 * read operation only: the dashboard offers no write operation, whatever the endpoint's access.
 *
 * <p>Every answer forbids framing and sniffing, and allows the page to load and fetch from its own origin only.
 */
public class ShardingDashboardServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** Where the static files are on the class path. */
    static final String RESOURCES = "dev/sharding/autoconfigure/dashboard/";

    /** The static files by path below the dashboard, with their content types. */
    private static final Map<String, String> FILES = Map.of(
            "/index.html", "text/html;charset=UTF-8",
            "/dashboard.css", "text/css;charset=UTF-8",
            "/dashboard.js", "text/javascript;charset=UTF-8");

    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final transient EndpointLocation location;

    private final Duration refreshInterval;

    /**
     * Creates the servlet.
     *
     * @param location where the sharding endpoint is served, or why it is not
     * @param refreshInterval how often the page reads the endpoint
     */
    public ShardingDashboardServlet(EndpointLocation location, Duration refreshInterval) {
        this.location = location;
        this.refreshInterval = refreshInterval;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        if (path == null || path.isEmpty()) {
            // relative links in the page resolve against the folder, so the page is served with its slash
            response.sendRedirect(request.getRequestURI() + "/");
            return;
        }
        secure(response);
        if (path.equals("/")) {
            path = "/index.html";
        }
        if (path.equals("/config.json")) {
            writeConfig(request, response);
            return;
        }
        String type = FILES.get(path);
        InputStream in = type == null
                ? null
                : ShardingDashboardServlet.class.getClassLoader().getResourceAsStream(RESOURCES + path.substring(1));
        if (in == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        response.setContentType(type);
        response.setHeader("Cache-Control", "no-cache");
        try (in;
                OutputStream out = response.getOutputStream()) {
            in.transferTo(out);
        }
    }

    private void writeConfig(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String endpoint = location.path();
        String json = "{\"endpoint\":" + (endpoint == null ? "null" : quote(request.getContextPath() + endpoint))
                + ",\"problem\":" + quote(endpoint == null ? location.problem() : "")
                + ",\"refreshMillis\":" + refreshInterval.toMillis() + "}";
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        response.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
    }

    private static void secure(HttpServletResponse response) {
        response.setHeader("Content-Security-Policy", POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Referrer-Policy", "no-referrer");
    }

    /** A JSON string of a text, escaped. */
    static String quote(String text) {
        StringBuilder b = new StringBuilder(text.length() + 2).append('"');
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** Where the sharding endpoint is served over HTTP in this application, or why it is not. */
    public interface EndpointLocation {

        /**
         * The endpoint's path below the servlet context.
         *
         * @return the path, for example {@code /actuator/sharding}, or {@code null} when the page cannot read it
         */
        @Nullable
        String path();

        /**
         * Why the page cannot read the endpoint, naming what to set.
         *
         * @return the reason; read only when {@link #path()} is {@code null}
         */
        String problem();
    }
}
