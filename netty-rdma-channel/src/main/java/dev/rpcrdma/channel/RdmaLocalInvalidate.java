package dev.rpcrdma.channel;

import io.netty.util.internal.ObjectUtil;

/**
 * Outbound: invalidate the binding of a {@link RdmaMemoryWindow} under {@code rkey} locally with an
 * {@code IBV_WR_LOCAL_INV} work request (no system call; RFC 8166 §3.4.3 leaves invalidation to the requester when
 * the responder did not invalidate remotely). Once the promise succeeds the rkey no longer works and the window can
 * be bound again. Only where {@link RdmaConnection#localInvalidateSupported()}; elsewhere the channel refuses the
 * message ({@link UnsupportedOperationException}): close the window there instead.
 */
public final class RdmaLocalInvalidate {
    private final RdmaMemoryWindow window;
    private final int rkey;

    /**
     * @param window the window
     * @param rkey   the rkey of the binding to invalidate (the {@link RdmaBindWindow#rkey()} it was bound with)
     */
    public RdmaLocalInvalidate(RdmaMemoryWindow window, int rkey) {
        this.window = ObjectUtil.checkNotNull(window, "window");
        this.rkey = rkey;
    }

    /** The window whose binding ends. */
    public RdmaMemoryWindow window() {
        return window;
    }

    /** The rkey that stops working. */
    public int rkey() {
        return rkey;
    }
}
