package dev.sharding;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core's dependency rules: no Spring anywhere, and the public types of the public packages ({@code dev.sharding},
 * {@code dev.sharding.spi}, {@code dev.sharding.store}) name no internal type in a public signature, so that the API
 * can be used without reaching into {@code dev.sharding.internal}.
 */
class ModuleBoundaryTest {

    private static final Path MAIN = Path.of("src/main/java/dev/sharding");

    @Test
    void coreHasNoSpring() throws IOException {
        assertThat(matching(MAIN, Pattern.compile("org\\.springframework"))).isEmpty();
    }

    @Test
    void publicApiShowsNoInternalType() throws Exception {
        List<String> leaks = new java.util.ArrayList<>();
        for (String pkg : List.of("", "spi", "store")) {
            Path dir = pkg.isEmpty() ? MAIN : MAIN.resolve(pkg);
            String prefix = "dev.sharding." + (pkg.isEmpty() ? "" : pkg + ".");
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file :
                        files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String name = file.getFileName().toString().replace(".java", "");
                    if (name.equals("package-info")) {
                        continue;
                    }
                    Class<?> type = Class.forName(prefix + name);
                    if (java.lang.reflect.Modifier.isPublic(type.getModifiers())) {
                        leaks.addAll(internalTypesIn(type));
                    }
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    /** Public members of a public type (and its public nested types) whose signature names an internal type. */
    private static List<String> internalTypesIn(Class<?> type) {
        List<String> leaks = new java.util.ArrayList<>();
        for (java.lang.reflect.Method m : type.getDeclaredMethods()) {
            if (java.lang.reflect.Modifier.isPublic(m.getModifiers())
                    && !m.isSynthetic()
                    && (m.toGenericString().contains("dev.sharding.internal"))) {
                leaks.add(m.toGenericString());
            }
        }
        for (java.lang.reflect.Constructor<?> c : type.getDeclaredConstructors()) {
            if (java.lang.reflect.Modifier.isPublic(c.getModifiers())
                    && c.toGenericString().contains("dev.sharding.internal")) {
                leaks.add(c.toGenericString());
            }
        }
        for (java.lang.reflect.Field f : type.getDeclaredFields()) {
            if (java.lang.reflect.Modifier.isPublic(f.getModifiers())
                    && f.toGenericString().contains("dev.sharding.internal")) {
                leaks.add(f.toGenericString());
            }
        }
        if (type.getGenericSuperclass() != null
                && type.getGenericSuperclass().getTypeName().contains("dev.sharding.internal")) {
            leaks.add(type.getName() + " extends " + type.getGenericSuperclass().getTypeName());
        }
        for (java.lang.reflect.Type t : type.getGenericInterfaces()) {
            if (t.getTypeName().contains("dev.sharding.internal")) {
                leaks.add(type.getName() + " implements " + t.getTypeName());
            }
        }
        for (Class<?> nested : type.getDeclaredClasses()) {
            if (java.lang.reflect.Modifier.isPublic(nested.getModifiers())) {
                leaks.addAll(internalTypesIn(nested));
            }
        }
        return leaks;
    }

    private static List<Path> matching(Path root, Pattern pattern) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        try {
                            return pattern.matcher(Files.readString(p)).find();
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    })
                    .toList();
        }
    }
}
