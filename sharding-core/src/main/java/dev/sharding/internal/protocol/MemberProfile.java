package dev.sharding.internal.protocol;

import dev.sharding.MemberSettings;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * What a member says of itself in {@link Register}, {@link ShardStates} and {@link RegionStats}: the version of the
 * application it runs (the coordinator places new shards on the newest only, and does not rebalance while several
 * are present) and its roles (for operators; which types a node hosts follows from them on the node itself).
 *
 * @param appVersion the application version, empty for unversioned
 * @param roles the roles, sorted
 */
public record MemberProfile(String appVersion, List<String> roles) {

    /** A member that says nothing: unversioned, no roles (a probe, or a test). */
    public static final MemberProfile NONE = new MemberProfile("", List.of());

    private static final int MAX_ROLES = 1_000;

    /** Copies the roles. */
    public MemberProfile {
        roles = List.copyOf(roles);
    }

    /**
     * The profile of a node's settings.
     *
     * @param settings the node's member settings
     * @return its profile
     */
    public static MemberProfile of(MemberSettings settings) {
        return new MemberProfile(settings.appVersion(), List.copyOf(settings.roles()));
    }

    void writeTo(WireWriter out) {
        out.string(appVersion).varInt(roles.size());
        roles.forEach(out::string);
    }

    static MemberProfile readFrom(WireReader in) {
        String version = in.string();
        int n = in.varInt();
        if (n > MAX_ROLES || n > in.remaining()) {
            throw new MalformedFrameException("Bad role count " + n);
        }
        List<String> roles = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            roles.add(in.string());
        }
        return new MemberProfile(version, roles);
    }
}
