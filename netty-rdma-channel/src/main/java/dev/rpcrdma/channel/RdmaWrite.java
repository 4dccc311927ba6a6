package dev.rpcrdma.channel;

/** RDMA Write of {@code length} bytes at {@code offset} of local registered memory to the peer's range. */
public final class RdmaWrite extends RdmaOneSidedOperation {
    public RdmaWrite(RdmaMemory local, int offset, int length, long remoteAddress, int rkey) {
        super(local, offset, length, remoteAddress, rkey);
    }
}
