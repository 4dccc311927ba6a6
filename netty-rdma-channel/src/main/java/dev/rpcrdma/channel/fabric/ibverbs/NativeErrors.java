package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.verbs.NativeCallException;

/**
 * The SPI's error type at the native fabric's edge: a failed verbs or RDMA-CM call ({@link NativeCallException})
 * becomes a {@link FabricException} with the same errno and message, as the software fabric throws, so callers and
 * the fabric contract suite read {@link FabricException#errno()} whichever fabric they run on. Stateless.
 */
final class NativeErrors {
    private NativeErrors() {
    }

    static FabricException of(NativeCallException e) {
        String suffix = " (errno " + e.errno() + ")";
        String message = e.getMessage();
        int at = message.indexOf(suffix);
        FabricException f = new FabricException(at < 0 ? message : message.substring(0, at)
                + message.substring(at + suffix.length()), e.errno());
        f.initCause(e);
        return f;
    }

    /** Refuses private data longer than the CM message carries, as the kernel's rdma_cm does (EINVAL). */
    static void checkPrivateData(String call, byte[] data, int max) throws FabricException {
        if (data != null && data.length > max) {
            throw new FabricException(call + ": private data " + data.length + " B > " + max + " B",
                    FabricException.EINVAL);
        }
    }
}
