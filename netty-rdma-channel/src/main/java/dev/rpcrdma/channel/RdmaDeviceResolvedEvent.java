package dev.rpcrdma.channel;

/**
 * A user event fired through a connecting client channel's pipeline once the RDMA-CM resolved the route, the device
 * is known and the connection's resources exist, right before {@code rdma_connect}: what the device can do is now
 * answered by {@link RdmaConnection} ({@link RdmaConnection#memoryWindowsSupported()},
 * {@link RdmaConnection#remoteInvalidationSupported()}, ...), and a handler may still change
 * {@link RdmaChannelOption#PRIVATE_DATA} of the connect request, e.g. to withdraw an offer the device cannot keep.
 * Fired on the channel's event loop.
 */
public final class RdmaDeviceResolvedEvent {
    /** The only instance. */
    public static final RdmaDeviceResolvedEvent INSTANCE = new RdmaDeviceResolvedEvent();

    private RdmaDeviceResolvedEvent() {
    }

    @Override
    public String toString() {
        return "RdmaDeviceResolvedEvent";
    }
}
