package dev.rpcrdma.handlers.binding;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;

/**
 * An RPC-over-RDMA Upper-Layer Binding (RFC 8166 §6, RFC 8267): which XDR data items of a program's messages are
 * DDP-eligible, located in the bytes of a whole RPC message encoded by a foreign stack. The byte framing
 * ({@code RpcRdmaFraming}) asks it where the items of a reply are, to place them in the call's Write chunks (RFC 8166
 * §3.4.5), and where those of a call are, to move them into Read chunks. Services written against this project's
 * API need no binding: their {@code XdrPayload} already names its DDP-eligible items.
 *
 * <p>A binding reads only the bytes it is given, with every length checked against them before use: truncated or
 * lying XDR (counts past the end, a data length beyond the message) is an {@link XdrException}, never an
 * out-of-bounds read or an allocation sized by the peer. Implementations must be stateless and thread-safe.
 */
public interface UpperLayerBinding {

    /** A binding with no DDP-eligible items: every message travels inline, in a Reply chunk or as a Long Call. */
    UpperLayerBinding NONE = new UpperLayerBinding() {
        @Override
        public String name() {
            return "none";
        }

        @Override
        public int replyItems(int program, int version, int procedure, ByteBuf reply, int[] items) {
            return 0;
        }

        @Override
        public int callItems(ByteBuf call, int[] items) {
            return 0;
        }
    };

    /** Returned by {@link #replyItems} and {@link #callItems} when the items of a message cannot be located. */
    int UNKNOWN = -1;

    /**
     * The most DDP-eligible items one message may have located ({@code items.length / 2} at least this): as many as
     * the Write chunks a call may offer by default ({@code RpcRdmaLimits.DEFAULT}). Items past the array's room are
     * not located and stay inline, as RFC 8267 §6.4.1 has READ results beyond the Write list return inline.
     */
    int MAX_ITEMS = 8;

    /**
     * The NFS binding of RFC 8267: NFS versions 2 and 3 (READ and READLINK results, WRITE and SYMLINK arguments, §4)
     * and NFS version 4.x COMPOUND (READ and READLINK results, WRITE arguments, §6.1; Write chunks paired with the
     * results in order, §6.4.1), program 100003.
     */
    static UpperLayerBinding nfs() {
        return NfsBinding.INSTANCE;
    }

    /** A name for log lines and counters. */
    String name();

    /**
     * Locates the DDP-eligible result items of {@code reply}, a whole RPC reply message (readable bytes) to a call
     * of {@code program}, {@code version}, {@code procedure}: writes {@code (position, length)} pairs into
     * {@code items} ({@code position}: offset of the item's data from the reader index, right after its XDR length
     * word) in stream order and returns how many; 0 when the reply has none (a failed READ, an unbound program);
     * {@link #UNKNOWN} when it may have some this binding cannot find.
     *
     * @throws XdrException the bytes are not what the program's XDR says (truncated, counts past the end)
     */
    int replyItems(int program, int version, int procedure, ByteBuf reply, int[] items) throws XdrException;

    /**
     * Locates the DDP-eligible argument items of {@code call}, a whole RPC call message (readable bytes), as
     * {@link #replyItems} does for replies.
     *
     * @throws XdrException the bytes are not what the program's XDR says
     */
    int callItems(ByteBuf call, int[] items) throws XdrException;
}
