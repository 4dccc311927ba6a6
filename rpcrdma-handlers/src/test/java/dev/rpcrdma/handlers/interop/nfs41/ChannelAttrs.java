package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

/**
 * {@code channel_attrs4} of CREATE_SESSION (RFC 5661 §18.36): the limits of the fore or back channel of a session.
 * No RDMA IRD is sent (none is needed: the RPC-over-RDMA transport negotiates its own resources). Immutable.
 */
public record ChannelAttrs(int headerPadSize, int maxRequestSize, int maxResponseSize, int maxResponseSizeCached,
                    int maxOperations, int maxRequests) {

    void encode(XdrWriter w) {
        w.writeInt(headerPadSize).writeInt(maxRequestSize).writeInt(maxResponseSize).writeInt(maxResponseSizeCached)
                .writeInt(maxOperations).writeInt(maxRequests).writeInt(0);
    }

    static ChannelAttrs decode(XdrReader r) throws XdrException {
        ChannelAttrs a = new ChannelAttrs(r.readInt(), r.readInt(), r.readInt(), r.readInt(), r.readInt(), r.readInt());
        int ird = r.readArrayLength(1, 4);
        for (int i = 0; i < ird; i++) {
            r.readInt();
        }
        return a;
    }
}
