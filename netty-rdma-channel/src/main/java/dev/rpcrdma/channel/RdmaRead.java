package dev.rpcrdma.channel;

/**
 * RDMA Read of {@code length} bytes of the peer's range into local registered memory at {@code offset}; the bytes
 * are there when the write promise succeeds.
 */
public final class RdmaRead extends RdmaOneSidedOperation {
    public RdmaRead(RdmaMemory local, int offset, int length, long remoteAddress, int rkey) {
        super(local, offset, length, remoteAddress, rkey);
    }
}
