package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The auto-configuration uses only the public API of the core ({@code dev.sharding}, {@code dev.sharding.spi},
 * {@code dev.sharding.store}): what it needs, a user building a node by hand needs too.
 */
class ModuleBoundaryTests {

    @Test
    void autoConfigurationImportsNoInternalPackage() throws IOException {
        assertThat(sourcesMentioning(Path.of("src/main/java"), "dev.sharding.internal"))
                .isEmpty();
    }

    static List<Path> sourcesMentioning(Path root, String text) throws IOException {
        assertThat(root)
                .as("the module's main sources, from the module's directory")
                .isDirectory();
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains(text);
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    })
                    .toList();
        }
    }
}
