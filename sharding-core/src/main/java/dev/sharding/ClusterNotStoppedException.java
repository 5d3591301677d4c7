package dev.sharding;

import java.io.Serial;
import java.util.List;

/**
 * The stored sharding data of a cluster was not removed because members of the cluster are alive: removing the
 * remembered entities from under running nodes would make them forget entities they run. Nothing was changed.
 */
public class ClusterNotStoppedException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String clusterName;

    private final List<String> liveMembers;

    /**
     * Creates the exception.
     *
     * @param clusterName the cluster
     * @param liveMembers the names of the members found alive, oldest first
     */
    public ClusterNotStoppedException(String clusterName, List<String> liveMembers) {
        super("The stored sharding data of cluster '" + clusterName + "' was not removed: the cluster is not stopped, "
                + (liveMembers.size() == 1 ? "member " : "members ") + String.join(", ", liveMembers)
                + (liveMembers.size() == 1 ? " is" : " are") + " alive. Nothing was changed; stop every node of the"
                + " cluster first");
        this.clusterName = clusterName;
        this.liveMembers = List.copyOf(liveMembers);
    }

    /**
     * The cluster whose data was to be removed.
     *
     * @return the cluster name
     */
    public String clusterName() {
        return clusterName;
    }

    /**
     * The members found alive.
     *
     * @return their names, oldest first
     */
    public List<String> liveMembers() {
        return liveMembers;
    }
}
