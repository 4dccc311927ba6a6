package dev.rpcrdma.channel;

import java.io.IOException;

/** An RDMA transport failure with a named cause. */
public class RdmaException extends IOException {
    private static final long serialVersionUID = 1L;

    public RdmaException(String message) {
        super(message);
    }

    public RdmaException(String message, Throwable cause) {
        super(message, cause);
    }
}
