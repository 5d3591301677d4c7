package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The runnable jar carries the drivers a node needs to share a database with nodes on other hosts
 * ({@code --spring.datasource.url=jdbc:h2:tcp://...} or {@code jdbc:postgresql://...}) and its connection pool.
 */
class SampleJarIT {

    @Test
    void carriesTheDriversOfAnH2ServerAndOfPostgreSql() throws IOException {
        Path jar = Paths.get(System.getProperty("sample.jar", "target/sample-app.jar"));
        try (JarFile file = new JarFile(jar.toFile())) {
            List<String> libraries = file.stream()
                    .map(ZipEntry::getName)
                    .filter(name -> name.startsWith("BOOT-INF/lib/"))
                    .toList();
            assertThat(libraries)
                    .anyMatch(name -> name.matches("BOOT-INF/lib/h2-[0-9.]+\\.jar"))
                    .anyMatch(name -> name.matches("BOOT-INF/lib/postgresql-[0-9.]+\\.jar"))
                    .anyMatch(name -> name.matches("BOOT-INF/lib/HikariCP-[0-9.]+\\.jar"));
        }
    }
}
