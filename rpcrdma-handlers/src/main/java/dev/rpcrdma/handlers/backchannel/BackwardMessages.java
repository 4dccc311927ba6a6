package dev.rpcrdma.handlers.backchannel;

import dev.rpcrdma.handlers.header.RdmaProcedure;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.RpcRdmaHeaderEncoder;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.oncrpc.message.MsgType;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The wire rules of backward-direction messages that both sides share (RFC 8167 §4.2, §5): a backward call or reply
 * is RDMA_MSG with rdma_xid equal to the RPC xid (§5.1, §5.2) and all three chunk lists empty (chunks are optional in
 * the reverse direction, §5.3, and neither side here supports them, as Linux's does not), the RPC message inline
 * right after the 28-byte header, so its msg_type sits at a fixed offset; and it is no larger than min(inline send,
 * inline receive, 4096) bytes with that header (both directions share the receives and so the inline thresholds,
 * §4.2; Linux's {@code xprt_rdma_bc_maxpayload} is a page). Stateless.
 */
public final class BackwardMessages {
    /** The transport header of a backward message: xid, vers, credit, RDMA_MSG, three empty lists. */
    public static final int HEADER_LENGTH = RpcRdmaHeader.MIN_MSG_LENGTH;
    /** Linux never builds a backward message larger than one page. */
    static final int PAGE = 4096;
    private static final int CALL = MsgType.CALL.intValue();
    private static final int REPLY = MsgType.REPLY.intValue();

    private BackwardMessages() {
    }

    /** The largest backward RPC message (transport header excluded) on a connection with these thresholds. */
    public static int maxMessageSize(InlineThresholds thresholds) {
        return Math.min(Math.min(thresholds.sendThreshold(), thresholds.receiveThreshold()), PAGE) - HEADER_LENGTH;
    }

    /**
     * The RPC msg_type of the message after a decoded RDMA_MSG {@code header} ({@code rpc}: the bytes after the
     * transport header), or -1 when there is none to read (RDMA_NOMSG, RDMA_ERROR, fewer than 8 bytes).
     */
    static int msgType(RpcRdmaHeader header, ByteBuf rpc) {
        if (!RdmaProcedure.RDMA_MSG.equals(header.procedure()) || rpc.readableBytes() < 8) {
            return -1;
        }
        return rpc.getInt(rpc.readerIndex() + 4);
    }

    /** True if the message after {@code header} is an RPC CALL (at a requester: a backward call). */
    public static boolean isCall(RpcRdmaHeader header, ByteBuf rpc) {
        return msgType(header, rpc) == CALL;
    }

    /** True if the message after {@code header} is an RPC REPLY (at a responder with a backchannel: a backward reply). */
    public static boolean isReply(RpcRdmaHeader header, ByteBuf rpc) {
        return msgType(header, rpc) == REPLY;
    }

    /**
     * Why a received backward message breaks these rules (RFC 8167 §4.2, §5.1 to §5.3), or null if it keeps them:
     * chunk lists, rdma_xid not the RPC xid, a message larger than {@code maxMessage}.
     */
    static String violation(RpcRdmaHeader header, ByteBuf rpc, int maxMessage) {
        if (header.hasChunks()) {
            return "carries chunk lists (backward messages are inline only)";
        }
        if (rpc.getInt(rpc.readerIndex()) != header.xid()) {
            return "rdma_xid " + Integer.toUnsignedString(header.xid()) + " differs from the RPC xid "
                    + Integer.toUnsignedString(rpc.getInt(rpc.readerIndex()));
        }
        if (rpc.readableBytes() > maxMessage) {
            return "is " + rpc.readableBytes() + " bytes, more than the backchannel's " + maxMessage;
        }
        return null;
    }

    /** Encodes a backward message: the 28-byte RDMA_MSG header with {@code credits}, then the whole RPC message. */
    static ByteBuf encode(ByteBufAllocator alloc, int xid, int credits, XdrPayload rpc) {
        RpcRdmaHeader header = RpcRdmaHeader.msg(xid, credits);
        ByteBuf send = alloc.directBuffer(header.encodedLength() + rpc.inlineLength());
        RpcRdmaHeaderEncoder.encode(header, send);
        rpc.writeInline(send);
        return send;
    }
}
