package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A security flavor on the client side ({@link CallOptions#withSecurity}): builds each call's credential, verifier
 * and protected arguments, and checks each reply's verifier and unprotects its results. RPCSEC_GSS is
 * {@code dev.rpcrdma.oncrpc.gss.RpcGssClientContext}. Both methods run on the connection's event loop: no blocking.
 */
public interface RpcCallSecurity {

    /**
     * The message to send for call {@code xid}, with whatever state {@link #open} needs for its reply; takes
     * ownership of {@code args} (released when this throws).
     *
     * @throws RpcException the call cannot be sent under this security (e.g. the context expired); it fails
     */
    Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems, int maxReplySize,
                XdrPayload args, ByteBufAllocator alloc) throws RpcException;

    /**
     * Checks an MSG_ACCEPTED reply to a call {@link #seal} made ({@code state} is the sealed call's) and returns its
     * results unprotected as a new buffer the caller releases, or null when {@code results} are to be read as they
     * are. {@code results} is the reply's body (only a SUCCESS has any).
     *
     * @throws RpcException the verifier does not check, or the results do not unprotect: the call fails
     */
    ByteBuf open(Object state, RpcReply reply, XdrReader results) throws RpcException;

    /** A call {@link #seal} made: the message and the state its reply is checked with. */
    final class Sealed {
        private final OutboundRpcMessage message;
        private final Object state;

        /** {@code message} (owned) and {@code state}. */
        public Sealed(OutboundRpcMessage message, Object state) {
            this.message = message;
            this.state = state;
        }

        /** The message to send. */
        public OutboundRpcMessage message() {
            return message;
        }

        /** What {@link #open} gets back. */
        public Object state() {
            return state;
        }
    }
}
