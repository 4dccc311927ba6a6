package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

/**
 * {@code channel_attrs4} of CREATE_SESSION (RFC 5661 §18.36): the sizes and counts of one channel of a session.
 * Immutable.
 */
record ChannelAttrs(int headerPadSize, int maxRequestSize, int maxResponseSize, int maxResponseSizeCached,
                    int maxOperations, int maxRequests) {

    static ChannelAttrs decode(XdrReader in) throws XdrException {
        ChannelAttrs a = new ChannelAttrs(in.readInt(), in.readInt(), in.readInt(), in.readInt(), in.readInt(),
                in.readInt());
        int ird = in.readArrayLength(1, 4);
        for (int i = 0; i < ird; i++) {
            in.readInt();
        }
        return a;
    }

    void encode(XdrWriter out) {
        out.writeInt(headerPadSize).writeInt(maxRequestSize).writeInt(maxResponseSize)
                .writeInt(maxResponseSizeCached).writeInt(maxOperations).writeInt(maxRequests).writeInt(0);
    }
}
