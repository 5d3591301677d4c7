package dev.sharding.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The default shard id function is the same on every JVM (it is part of the wire contract: a node refuses a message
 * whose shard its own function does not give), and a function of one's own is taken from the annotation.
 */
class ShardIdFunctionTest {

    @Test
    void theDefaultGivesTheShardsTheJavaPlatformDefines() {
        ShardIdFunction f = ShardIdFunction.HashCode.INSTANCE;
        // String.hashCode is specified: s[0]*31^(n-1) + ... + s[n-1]; these values follow from it by hand
        assertThat("a".hashCode()).isEqualTo(97);
        assertThat(f.shardId("a", 100)).isEqualTo(97);
        assertThat("e-1".hashCode()).isEqualTo(98_505); // 'e' * 31 * 31 + '-' * 31 + '1' = 97,061 + 1,395 + 49
        assertThat(f.shardId("e-1", 100)).isEqualTo(5);
        // negative hash codes map into range (floorMod, not abs(h) % n, which fails for Integer.MIN_VALUE)
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(f.shardId("polygenelubricants", 100)).isEqualTo(52);
        assertThat(f.shardId("polygenelubricants", 7)).isEqualTo(Math.floorMod(Integer.MIN_VALUE, 7));
        assertThat(EntityType.shardOf("account-42", 100)).isEqualTo(f.shardId("account-42", 100));
    }

    @Test
    void theDefaultIsTheSameInAJvmWithOtherEncodingLocaleStringLayoutAndInterpreterOnly() throws Exception {
        List<String> ids = ids();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        java.toString(),
                        "-Xint",
                        "-XX:-CompactStrings",
                        "-Dfile.encoding=ISO-8859-1",
                        "-Duser.language=tr",
                        "-Duser.country=TR",
                        "-cp",
                        System.getProperty("java.class.path"),
                        PrintShards.class.getName())
                .redirectErrorStream(true)
                .start();
        byte[] out;
        try {
            out = child.getInputStream().readAllBytes();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        List<String> lines = new String(out, StandardCharsets.US_ASCII).lines().toList();
        assertThat(lines).hasSize(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            assertThat(lines.get(i)).as("id %d", i).isEqualTo(shardsOf(ids.get(i)));
        }
    }

    @Test
    void anAnnotatedFunctionIsMadeWithItsNoArgumentConstructor() {
        EntityType<ByCustomer> type = EntityType.of(ByCustomer.class, ctx -> new ByCustomer());
        assertThat(type.shardIdFunction()).isInstanceOf(CustomerShards.class);
        assertThat(type.shardIdFunction().shardId("c1:o1", 10))
                .isEqualTo(type.shardIdFunction().shardId("c1:o2", 10));
        assertThat(EntityType.of(Plain.class, ctx -> new Plain()).shardIdFunction())
                .isSameAs(ShardIdFunction.HashCode.INSTANCE);
    }

    @Test
    void aFunctionWithoutANoArgumentConstructorIsAClearError() {
        assertThatThrownBy(() -> EntityType.of(Unmakeable.class, ctx -> new Unmakeable()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(NeedsArgument.class.getName())
                .hasMessageContaining("no-argument constructor");
    }

    /** The ids compared across JVMs: ASCII, Latin-1, Turkish dotted and dotless i, CJK, surrogate pairs. */
    static List<String> ids() {
        List<String> ids = new ArrayList<>();
        String[] stems = {"e-", "account-", "kunde-ü-", "İıiI-", "客户-", "😀-", "", "x"};
        for (String stem : stems) {
            for (int i = 0; i < 500; i++) {
                ids.add(stem + i);
            }
        }
        return ids;
    }

    static String shardsOf(String id) {
        ShardIdFunction f = ShardIdFunction.HashCode.INSTANCE;
        return f.shardId(id, 100) + " " + f.shardId(id, 1000) + " " + f.shardId(id, 7);
    }

    /** Run in the child JVM: prints the shards of every id, one line each, in ASCII. */
    static final class PrintShards {
        public static void main(String[] args) throws IOException {
            StringBuilder sb = new StringBuilder();
            for (String id : ids()) {
                sb.append(shardsOf(id)).append('\n');
            }
            System.out.write(sb.toString().getBytes(StandardCharsets.US_ASCII));
            System.out.flush();
        }
    }

    /** Shards by the part of the id before the colon. */
    public static final class CustomerShards implements ShardIdFunction {
        @Override
        public int shardId(String entityId, int numberOfShards) {
            int colon = entityId.indexOf(':');
            return Math.floorMod((colon < 0 ? entityId : entityId.substring(0, colon)).hashCode(), numberOfShards);
        }
    }

    /** A function that needs an argument. */
    public static final class NeedsArgument implements ShardIdFunction {
        private final int n;

        public NeedsArgument(int n) {
            this.n = n;
        }

        @Override
        public int shardId(String entityId, int numberOfShards) {
            return n % numberOfShards;
        }
    }

    @ShardedEntity(shardIdFunction = CustomerShards.class)
    static final class ByCustomer {}

    @ShardedEntity
    static final class Plain {}

    @ShardedEntity(shardIdFunction = NeedsArgument.class)
    static final class Unmakeable {}
}
