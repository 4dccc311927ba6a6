package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.FabricException;

/**
 * Reads what a failed verbs or RDMA-CM call reports out of the exceptions the transport's futures fail with (for
 * example a connect to an address no RDMA device has): its errno and, for the native fabric, the C function that
 * failed. Like Netty's {@code Errors} it only inspects the exception it is given, not its causes; stateless and
 * safe from any thread.
 */
public final class RdmaErrors {

    private RdmaErrors() {
    }

    /** The (positive) errno of {@code failure} if it is a failed verbs or RDMA-CM call of either fabric, else 0. */
    public static int errno(Throwable failure) {
        if (failure instanceof FabricException) {
            return ((FabricException) failure).errno();
        }
        Fabric f = RdmaFabric.installedNative();
        return f != null ? f.errno(failure) : 0;
    }

    /**
     * The C function (e.g. {@code "rdma_resolve_addr"}) whose failure {@code failure} reports if it is a failed
     * libibverbs or librdmacm call of the native fabric, else null.
     */
    public static String failedCall(Throwable failure) {
        Fabric f = RdmaFabric.installedNative();
        return f != null ? f.failedCall(failure) : null;
    }
}
