package dev.sharding.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireStringsTest {

    @Test
    void stringsRoundTripWhateverTheirCharactersAndLength() {
        for (String s : List.of(
                "",
                "a",
                "account-42",
                "x".repeat(127),
                "x".repeat(128),
                "y".repeat(5000),
                "caf\u00e9",
                "\u00ff",
                "\u20ac-\ud83d\ude00",
                "a\u0000b")) {
            WireWriter out = new WireWriter(4);
            out.string(s).string(s);
            byte[] bytes = out.toByteArray();
            WireReader in = new WireReader(bytes, 0, bytes.length);
            assertThat(in.string()).isEqualTo(s);
            assertThat(in.string(new KnownStrings(List.of("other", s)))).isEqualTo(s);
            in.expectEnd();
            // the same bytes as the plain UTF-8 encoding behind a varint length
            WireWriter plain = new WireWriter(4);
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            plain.varInt(utf8.length).write(utf8, 0, utf8.length);
            assertThat(java.util.Arrays.copyOf(bytes, plain.size())).isEqualTo(plain.toByteArray());
        }
    }

    @Test
    void aKnownStringIsReadAsTheKnownInstanceAndAnUnknownOneAsANewString() {
        String known = new String("account".toCharArray());
        KnownStrings names = new KnownStrings(List.of("device", known));
        WireWriter out = new WireWriter(16);
        out.string("account").string("accounts").string("devic");
        byte[] bytes = out.toByteArray();
        WireReader in = new WireReader(bytes, 0, bytes.length);
        assertThat(in.string(names)).isSameAs(known);
        assertThat(in.string(names)).isEqualTo("accounts");
        assertThat(in.string(names)).isEqualTo("devic");
        in.expectEnd();
        assertThat(names.indexOf(bytes, 1, 7)).isEqualTo(1);
        assertThat(KnownStrings.none().indexOf(bytes, 1, 7)).isEqualTo(-1);
    }

    @Test
    void aThreadEncodingWhileItsScratchWriterIsTakenGetsAnotherOne() {
        WireWriter.Scratch scratch = new WireWriter.Scratch();
        WireWriter first = scratch.acquire();
        first.string("outer");
        WireWriter nested = scratch.acquire();
        assertThat(nested).isNotSameAs(first);
        nested.string("inner");
        scratch.release(nested);
        assertThat(first.size()).isEqualTo(6);
        scratch.release(first);
        WireWriter again = scratch.acquire();
        assertThat(again).isSameAs(first);
        assertThat(again.size()).isZero();
        scratch.release(again);
    }
}
