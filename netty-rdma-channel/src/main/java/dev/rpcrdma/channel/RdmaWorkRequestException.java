package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.WcStatus;

/**
 * A work request did not complete successfully: {@link #status()} is its {@code ibv_wc_status}
 * ({@code IBV_WC_WR_FLUSH_ERR} when it was flushed because the channel closed or the queue pair failed).
 */
public final class RdmaWorkRequestException extends RdmaException {
    private static final long serialVersionUID = 1L;
    private final int status;

    public RdmaWorkRequestException(String what, int status, String detail) {
        super(what + " failed: " + WcStatus.name(status) + (detail == null ? "" : " (" + detail + ')'));
        this.status = status;
    }

    /** The {@link WcStatus} value. */
    public int status() {
        return status;
    }

    /** True for {@code IBV_WC_WR_FLUSH_ERR}. */
    public boolean isFlushed() {
        return status == WcStatus.WR_FLUSH_ERR;
    }
}
