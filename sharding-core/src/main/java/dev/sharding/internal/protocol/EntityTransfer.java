package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entity's stored state, carried with its shard from the old owner to the new one so that the new owner need
 * not read it from the store.
 *
 * @param entityId the entity id
 * @param state the encoded state as last stored, or {@code null} when the entity has none stored
 * @param version its version in the store
 * @param applied the ids of the messages it applied lately, as stored with the state, or {@code null}
 */
public record EntityTransfer(String entityId, byte @Nullable [] state, long version, byte @Nullable [] applied) {

    /**
     * A transfer without applied message ids.
     *
     * @param entityId the entity id
     * @param state the encoded state, or {@code null}
     * @param version its version in the store
     */
    public EntityTransfer(String entityId, byte @Nullable [] state, long version) {
        this(entityId, state, version, null);
    }

    static void writeList(WireWriter out, List<EntityTransfer> list) {
        out.varInt(list.size());
        for (EntityTransfer t : list) {
            out.string(t.entityId).bool(t.state != null);
            if (t.state != null) {
                out.bytes(t.state);
            }
            out.int64(t.version).bool(t.applied != null);
            if (t.applied != null) {
                out.bytes(t.applied);
            }
        }
    }

    static List<EntityTransfer> readList(WireReader in, int maxState) {
        int n = in.varInt();
        if (n > in.remaining()) {
            throw new MalformedFrameException("Bad transfer count " + n);
        }
        List<EntityTransfer> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String id = in.string();
            byte[] state = in.bool() ? in.bytes(maxState) : null;
            long version = in.int64();
            byte[] applied = in.bool() ? in.bytes(maxState) : null;
            list.add(new EntityTransfer(id, state, version, applied));
        }
        return List.copyOf(list);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EntityTransfer t
                && t.entityId.equals(entityId)
                && Arrays.equals(t.state, state)
                && t.version == version
                && Arrays.equals(t.applied, applied);
    }

    @Override
    public int hashCode() {
        return Objects.hash(entityId, version);
    }

    @Override
    public String toString() {
        return "EntityTransfer[" + entityId + ", " + (state == null ? "no state" : state.length + " bytes") + ", v"
                + version + "]";
    }
}
