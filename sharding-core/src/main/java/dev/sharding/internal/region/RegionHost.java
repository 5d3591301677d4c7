package dev.sharding.internal.region;

/**
 * The node as its regions see it, and nothing more: the parts they share with the node's other regions
 * ({@link RegionServices}), and one narrow role for each thing they may ask of the node (who it is, whether it serves,
 * its control thread and messages, what to tell it when hosting changes). A part that needs little takes only its
 * roles ({@link RegionCommands}, {@link RegionSends}, {@link RemoteReplySink}); the node's links play every role.
 *
 * @param services the parts shared with the node's other regions
 * @param view who the node is, and the view
 * @param serving whether the node takes messages and runs entities
 * @param plane the control thread, the clocks, protocol messages
 * @param events what the node hears when hosting changes
 */
public record RegionHost(
        RegionServices services, NodeView view, ServingState serving, ControlPlane plane, HostingEvents events) {

    /**
     * The host of the regions of a node whose links play every role.
     *
     * @param services the parts shared with the node's other regions
     * @param links the node's links
     * @param <L> the links' type
     * @return the host
     */
    public static <L extends NodeView & ServingState & ControlPlane & HostingEvents> RegionHost of(
            RegionServices services, L links) {
        return new RegionHost(services, links, links, links, links);
    }
}
