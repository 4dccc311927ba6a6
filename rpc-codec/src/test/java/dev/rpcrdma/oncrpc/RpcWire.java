package dev.rpcrdma.oncrpc;

import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/** Test helpers: raw rpc_msg bytes and RFC 5531 §11 record marks, written by hand (independent of the codec). */
public final class RpcWire {

    private RpcWire() {
    }

    /** Raw call header: xid, CALL, rpcvers, prog, vers, proc, AUTH_NONE cred and verf. */
    public static ByteBuf call(int xid, int rpcvers, int prog, int vers, int proc) {
        ByteBuf b = Unpooled.buffer();
        new XdrWriter(b).writeInt(xid).writeInt(0).writeInt(rpcvers).writeInt(prog).writeInt(vers).writeInt(proc)
                .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        return b;
    }

    /** One record, one fragment (last bit set); releases {@code message}. */
    public static ByteBuf record(ByteBuf message) {
        ByteBuf b = Unpooled.buffer(message.readableBytes() + 4);
        b.writeInt(0x8000_0000 | message.readableBytes()).writeBytes(message);
        message.release();
        return b;
    }

    /** Reads the next outbound record of {@code ch} (one buffer, single or multi fragment) and decodes it; null if none. */
    public static InboundRpcMessage readReply(EmbeddedChannel ch) throws XdrException {
        // RecordMarkingEncoder writes each record as one buffer.
        ByteBuf all = ch.readOutbound();
        if (all == null) {
            return null;
        }
        ByteBuf message = Unpooled.buffer();
        boolean last = false;
        while (!last) {
            int mark = all.readInt();
            last = mark < 0;
            message.writeBytes(all, mark & 0x7FFF_FFFF);
        }
        if (all.isReadable()) {
            all.release();
            message.release();
            throw new AssertionError("more than one record written");
        }
        all.release();
        return RpcMessageCodec.decode(message);
    }
}
