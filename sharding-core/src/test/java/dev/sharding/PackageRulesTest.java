package dev.sharding;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The allowed arrows between the core's packages, checked on the compiled classes: each internal package names the
 * internal packages it may use, so the runtime stays a house of floors (transport and protocol at the bottom, then
 * asks, entities, regions, and the node that assembles them), with no cycle between packages. The public packages
 * ({@code spi}, {@code store}) use no internal type, and of the API's own package only the classes that front the
 * runtime do.
 *
 * <p>docs/architecture.md draws the same map.
 */
class PackageRulesTest {

    private static final String INTERNAL = "dev.sharding.internal.";

    /**
     * Per internal package, the other internal packages it may use. The public packages ({@code dev.sharding},
     * {@code spi}, {@code store}) may be used by any of them.
     */
    private static final Map<String, Set<String>> MAY_USE = new TreeMap<>(Map.of(
            "codec", Set.of(),
            "protocol", Set.of("codec"),
            "transport", Set.of("codec", "protocol"),
            "coordinator", Set.of("protocol"),
            "lease", Set.of("coordinator", "protocol", "transport"),
            "ask", Set.of("protocol"),
            "entity", Set.of("ask", "codec", "protocol", "transport"),
            "region", Set.of("entity", "ask", "codec", "protocol", "transport"),
            "node", Set.of("region", "entity", "ask", "coordinator", "lease", "codec", "protocol", "transport")));

    /** The API's classes that front the runtime, and so may use it. */
    private static final Set<String> API_FRONTS = Set.of(
            "dev.sharding.ShardingNode",
            "dev.sharding.EntityType",
            "dev.sharding.ShardingDataRemoval",
            "dev.sharding.ShardedDaemonProcess",
            "dev.sharding.Projection");

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sharding");

    @Test
    void everyInternalPackageIsKnown() {
        Set<String> found = CORE.stream()
                .map(c -> c.getPackageName())
                .filter(p -> p.startsWith(INTERNAL))
                .map(PackageRulesTest::floor)
                .filter(p -> !p.equals("shaded"))
                .collect(Collectors.toCollection(java.util.TreeSet::new));
        org.assertj.core.api.Assertions.assertThat(found)
                .as("every internal package has its allowed arrows in MAY_USE")
                .isEqualTo(MAY_USE.keySet());
    }

    @Test
    void internalPackagesUseOnlyTheFloorsBelow() {
        List<String> wrong = CORE.stream()
                .filter(c -> c.getPackageName().startsWith(INTERNAL))
                .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
                .filter(PackageRulesTest::notAllowed)
                .map(Dependency::getDescription)
                .distinct()
                .sorted()
                .toList();
        org.assertj.core.api.Assertions.assertThat(wrong)
                .as("arrows between internal packages that MAY_USE does not allow")
                .isEmpty();
    }

    /** Every arrow is allowed by {@link #MAY_USE}, so the packages are free of cycles if it is. */
    @Test
    void allowedArrowsHaveNoCycle() {
        Map<String, Set<String>> left = new TreeMap<>(MAY_USE);
        while (!left.isEmpty()) {
            // take off a package that uses none of those left; if none is found, the rest form a cycle
            String free = left.entrySet().stream()
                    .filter(e -> e.getValue().stream().noneMatch(left::containsKey))
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElse(null);
            org.assertj.core.api.Assertions.assertThat(free)
                    .as("packages that use each other: %s", left.keySet())
                    .isNotNull();
            left.remove(free);
        }
    }

    @Test
    void publicPackagesUseNoInternalType() {
        ArchRule rule = noClasses()
                .that()
                .resideInAnyPackage("dev.sharding.spi..", "dev.sharding.store..")
                .or()
                .resideInAPackage("dev.sharding")
                .and()
                .haveNameNotMatching(Stream.of(API_FRONTS.toArray(String[]::new))
                        .map(n -> n.replace(".", "\\.") + "(\\$.*)?")
                        .collect(Collectors.joining("|")))
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.sharding.internal..");
        rule.check(CORE);
    }

    private static boolean notAllowed(Dependency d) {
        String from = d.getOriginClass().getPackageName();
        String to = d.getTargetClass().getPackageName();
        if (!to.startsWith(INTERNAL)) {
            return false;
        }
        String source = floor(from);
        String target = floor(to);
        return !source.equals(target)
                && !target.equals("shaded")
                && !MAY_USE.getOrDefault(source, Set.of()).contains(target);
    }

    /** The internal package a class's package belongs to: {@code dev.sharding.internal.region} gives "region". */
    private static String floor(String packageName) {
        String rest = packageName.substring(INTERNAL.length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }
}
