package dev.sharding.internal.node;

import dev.sharding.ClusterState;
import dev.sharding.Member;
import dev.sharding.internal.protocol.RegionStats;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** The cluster's state as the public API shows it, put together from every member's answer ({@link RegionStats}). */
final class ClusterStateAssembly {

    private ClusterStateAssembly() {}

    /**
     * Puts the answers together.
     *
     * @param self this member
     * @param coordinator the member whose coordinator is active, or {@code null}
     * @param members the members of the view, oldest first
     * @param localTypes the entity types this node runs
     * @param stats the answers by member; members that did not answer are missing
     * @return the snapshot, members that did not answer marked so
     */
    static ClusterState of(
            Member self,
            @Nullable Member coordinator,
            List<Member> members,
            Set<String> localTypes,
            Map<Member, RegionStats> stats) {
        Map<String, List<ClusterState.RegionState>> byType = new TreeMap<>();
        Set<String> types = new LinkedHashSet<>(localTypes);
        stats.values().forEach(s -> s.types().forEach(t -> types.add(t.typeName())));
        for (String type : types) {
            List<ClusterState.RegionState> list = new ArrayList<>();
            for (Member m : members) {
                RegionStats s = stats.get(m);
                if (s == null) {
                    list.add(new ClusterState.RegionState(m, false, false, 0, Map.of()));
                    continue;
                }
                s.types().stream()
                        .filter(t -> t.typeName().equals(type))
                        .findFirst()
                        .ifPresent(t -> list.add(new ClusterState.RegionState(
                                m, true, t.proxyOnly(), t.passivations(), t.entitiesPerShard())));
            }
            byType.put(type, List.copyOf(list));
        }
        Set<Member> leaving = new LinkedHashSet<>();
        List<String> handoffs = new ArrayList<>();
        List<ClusterState.Rebalance> rebalances = new ArrayList<>();
        Map<Member, String> refused = new LinkedHashMap<>();
        Instant answered = Instant.now();
        stats.forEach((m, s) -> {
            if (s.leaving()) {
                leaving.add(m);
            }
            handoffs.addAll(s.handoffs());
            s.refused().stream()
                    .filter(r -> members.contains(r.member()))
                    .forEach(r -> refused.put(r.member(), r.reason()));
            s.rebalances()
                    .forEach(r -> rebalances.add(new ClusterState.Rebalance(
                            answered.minusMillis(r.ageMillis()), r.rounds(), r.moved(), r.from(), r.to())));
        });
        rebalances.sort(Comparator.comparing(ClusterState.Rebalance::startedAt).reversed());
        Map<Member, ClusterState.MemberInfo> info = new LinkedHashMap<>();
        stats.forEach((m, s) -> info.put(
                m,
                new ClusterState.MemberInfo(
                        Set.copyOf(s.profile().roles()), s.profile().appVersion())));
        return new ClusterState(
                self,
                coordinator,
                members,
                byType,
                Set.copyOf(leaving),
                List.copyOf(handoffs),
                info,
                List.copyOf(rebalances),
                Collections.unmodifiableMap(refused));
    }
}
