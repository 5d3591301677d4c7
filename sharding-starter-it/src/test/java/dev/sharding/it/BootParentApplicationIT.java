package dev.sharding.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Builds an application the way docs/getting-started.md tells a user to: {@code spring-boot-starter-parent} as its
 * parent and the documented dependency block, against the starter of this build (installed in a repository of the
 * test's own under target/). Then runs it: the application sends a message to an entity and prints the reply.
 */
class BootParentApplicationIT {

    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);

    private final Path appDir = Paths.get("target", "boot-parent-app").toAbsolutePath();

    @Test
    void applicationUnderBootsParentBuildsAndRuns() throws Exception {
        String dependencies = documentedDependencies();
        assertThat(dependencies)
                .as("the documented starter version")
                .contains("<version>" + System.getProperty("it.sharding.version") + "</version>");
        prepareApplication(dependencies);

        Path log = appDir.resolve("build.log");
        int built = build(log, true);
        if (built != 0 && Files.readString(log).contains("offline")) {
            built = build(log, false); // the first run on a machine may need Boot's plugins downloaded
        }
        assertThat(built)
                .as("mvn package of the application; its output:%n%s", tail(log))
                .isZero();

        Path runLog = appDir.resolve("run.log");
        int port = freePort();
        List<String> command = List.of(
                javaBin(),
                "-Xmx256m",
                "-jar",
                appDir.resolve("target/tally.jar").toString(),
                "--spring.main.web-application-type=none",
                "--sharding.cluster-name=boot-parent-it-" + UUID.randomUUID(),
                "--sharding.jgroups.bind-port=" + port,
                "--sharding.jgroups.initial-hosts=127.0.0.1[" + port + "]",
                "--sharding.store.embedded-path=" + appDir.resolve("data/sharding"));
        Process app = new ProcessBuilder(command)
                .directory(appDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(runLog.toFile())
                .start();
        try {
            assertThat(app.waitFor(3, TimeUnit.MINUTES))
                    .as("the application stopped by itself")
                    .isTrue();
            assertThat(Files.readString(runLog)).as("the application's output").contains("TALLY t-1=5");
            assertThat(app.exitValue())
                    .as("exit code; output:%n%s", tail(runLog))
                    .isZero();
        } finally {
            app.destroyForcibly();
            app.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String documentedDependencies() throws IOException {
        String guide = Files.readString(Paths.get(System.getProperty("it.getting.started")));
        Matcher m = XML_BLOCK.matcher(guide);
        while (m.find()) {
            if (m.group(1).contains("<artifactId>sharding-spring-boot-starter</artifactId>")) {
                return m.group(1);
            }
        }
        throw new AssertionError("docs/getting-started.md has no xml block with the starter's dependency");
    }

    private void prepareApplication(String dependencies) throws IOException {
        if (Files.exists(appDir)) {
            try (Stream<Path> files = Files.walk(appDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Path source = Paths.get("target", "test-classes", "boot-parent-app");
        try (Stream<Path> files = Files.walk(source)) {
            for (Path from : files.toList()) {
                Path to = appDir.resolve(source.relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to);
                }
            }
        }
        Path template = appDir.resolve("pom.xml.template");
        String pom = Files.readString(template)
                .replace("@boot.version@", System.getProperty("it.boot.version"))
                .replace("@dependencies@", dependencies);
        Files.writeString(appDir.resolve("pom.xml"), pom);
        Files.delete(template);
    }

    private int build(Path log, boolean offline) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("it.maven.home"), "bin", "mvn").toString(),
                "-B",
                "-q",
                "-DskipTests",
                "-Dmaven.repo.local=" + System.getProperty("it.repo"),
                "-Dmaven.repo.local.tail=" + System.getProperty("it.repo.tail"),
                "package"));
        if (offline) {
            command.add(1, "-o");
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(appDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("MAVEN_OPTS", "-Xmx384m");
        Process mvn = builder.start();
        if (!mvn.waitFor(8, TimeUnit.MINUTES)) {
            mvn.destroyForcibly();
            throw new AssertionError("mvn package of the application took over 8 minutes; output:\n" + tail(log));
        }
        return mvn.exitValue();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String javaBin() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
