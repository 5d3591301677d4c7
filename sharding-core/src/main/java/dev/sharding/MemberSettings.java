package dev.sharding;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a node tells the cluster about itself, and when the cluster starts placing shards.
 *
 * @param roles the node's roles: an entity type with a role ({@code EntityTypeSettings.role}) is hosted only on nodes
 *     that have it; the others route its messages as proxies
 * @param appVersion the version of the application this node runs, compared as versions ({@code 1.10 > 1.9},
 *     {@code 2.0.0-RC1 < 2.0.0}): while several are present, new shards go only to the newest, and no shard is moved
 *     by rebalancing, so that a rolling update moves shards from old nodes to new ones only; empty means unversioned
 *     (older than any version)
 * @param minNrOfMembers how many members must have joined before the first shard is placed, so that the first shards
 *     spread over all of them; messages wait in the regions' buffers meanwhile
 */
public record MemberSettings(Set<String> roles, String appVersion, int minNrOfMembers) {

    /** No roles, unversioned, placement from the first member on. */
    public static final MemberSettings DEFAULT = new MemberSettings(Set.of(), "", 1);

    /** What a role may look like. */
    static final Pattern ROLE = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    /** What a version may look like. */
    static final Pattern VERSION = Pattern.compile("[A-Za-z0-9._+-]{0,100}");

    /** The most roles of a node. */
    static final int MAX_ROLES = 100;

    /**
     * Sorts and copies the roles.
     */
    public MemberSettings {
        roles = Set.copyOf(new TreeSet<>(Objects.requireNonNull(roles, "roles")));
        Objects.requireNonNull(appVersion, "appVersion");
    }

    /**
     * Whether this node has a role.
     *
     * @param role the role, or {@code null} for none
     * @return true for no role, or a role of this node
     */
    public boolean hasRole(@org.jspecify.annotations.Nullable String role) {
        return role == null || role.isEmpty() || roles.contains(role);
    }

    /**
     * Copy with other roles.
     *
     * @param value the roles
     * @return the copy
     */
    public MemberSettings withRoles(Set<String> value) {
        return new MemberSettings(value, appVersion, minNrOfMembers);
    }

    /**
     * Copy with another application version.
     *
     * @param value the version, or empty for unversioned
     * @return the copy
     */
    public MemberSettings withAppVersion(String value) {
        return new MemberSettings(roles, value, minNrOfMembers);
    }

    /**
     * Copy with another minimum number of members.
     *
     * @param value at least 1
     * @return the copy
     */
    public MemberSettings withMinNrOfMembers(int value) {
        return new MemberSettings(roles, appVersion, value);
    }

    /** Names the first invalid field, for {@link ShardingSettings#validate()}. */
    void validate() {
        InvalidSettingException.require(
                roles.size() <= MAX_ROLES, "roles", roles.size() + " roles", "at most " + MAX_ROLES + " roles");
        for (String role : roles) {
            InvalidSettingException.require(
                    ROLE.matcher(role).matches(), "roles", role, "a role is 1 to 100 characters of [A-Za-z0-9._-]");
        }
        InvalidSettingException.require(
                VERSION.matcher(appVersion).matches(),
                "app-version",
                appVersion,
                "at most 100 characters of [A-Za-z0-9._+-], for example 1.4.2 or 2.0.0-RC1");
        InvalidSettingException.require(
                minNrOfMembers >= 1 && minNrOfMembers <= 10_000,
                "min-nr-of-members",
                minNrOfMembers,
                "must be 1 to 10000");
    }
}
