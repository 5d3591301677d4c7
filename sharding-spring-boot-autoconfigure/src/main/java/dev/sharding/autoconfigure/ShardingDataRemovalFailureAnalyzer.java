package dev.sharding.autoconfigure;

import dev.sharding.ClusterNotStoppedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains why an application started with {@code sharding.store.remove-sharding-data=true} removed nothing: members
 * of its cluster are alive.
 */
class ShardingDataRemovalFailureAnalyzer extends AbstractFailureAnalyzer<ClusterNotStoppedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ClusterNotStoppedException cause) {
        String members = String.join(", ", cause.liveMembers());
        return new FailureAnalysis(
                "The stored sharding data of cluster '" + cause.clusterName() + "' was not "
                        + "removed, because the cluster is not stopped: "
                        + (cause.liveMembers().size() == 1 ? "member " : "members ")
                        + members + (cause.liveMembers().size() == 1 ? " is" : " are") + " alive. Nothing was changed.",
                "Stop every node of cluster '" + cause.clusterName() + "' (" + members + "), then start the "
                        + "application again with sharding.store.remove-sharding-data=true. If these are not nodes "
                        + "of the cluster meant, check sharding.cluster-name and the sharding.jgroups.* properties.",
                cause);
    }
}
