package dev.rpcrdma.oncrpc.program;

import io.netty.util.internal.ObjectUtil;

/**
 * The declaration of one procedure of an {@link RpcProgram}: its number and name, the codecs of its arguments and
 * results, the largest reply it may return (what an RPC-over-RDMA requester provisions a Reply chunk for, RFC 8166
 * §3.5.4; 0: the connection's configured maximum) and whether its implementation blocks (it then runs on the
 * service's executor, never on an event loop). Immutable; {@code with...} return copies.
 *
 * @param <A> argument type
 * @param <R> result type
 */
public final class RpcProcedureSpec<A, R> {

    private final int number;
    private final String name;
    private final XdrCodec<A> arguments;
    private final XdrCodec<R> results;
    private final int maxReplySize;
    private final boolean blocking;

    private RpcProcedureSpec(int number, String name, XdrCodec<A> arguments, XdrCodec<R> results, int maxReplySize,
                             boolean blocking) {
        this.number = number;
        this.name = ObjectUtil.checkNonEmpty(name, "name");
        this.arguments = ObjectUtil.checkNotNull(arguments, "arguments");
        this.results = ObjectUtil.checkNotNull(results, "results");
        this.maxReplySize = ObjectUtil.checkPositiveOrZero(maxReplySize, "maxReplySize");
        this.blocking = blocking;
    }

    /** Procedure {@code number} called {@code name}; no declared maximum reply; not blocking. */
    public static <A, R> RpcProcedureSpec<A, R> of(int number, String name, XdrCodec<A> arguments,
                                                   XdrCodec<R> results) {
        return new RpcProcedureSpec<>(number, name, arguments, results, 0, false);
    }

    /**
     * With the largest reply message in bytes (RPC reply header and results; 0: the connection's configured
     * maximum). Over RDMA a call of this procedure offers a Reply chunk of this size when it exceeds the inline
     * threshold, and none otherwise; over TCP it is not used.
     */
    public RpcProcedureSpec<A, R> withMaxReplySize(int maxReplySize) {
        return new RpcProcedureSpec<>(number, name, arguments, results, maxReplySize, blocking);
    }

    /** Marked blocking: served on the service's executor, its reply still written on the connection's loop. */
    public RpcProcedureSpec<A, R> blocking() {
        return new RpcProcedureSpec<>(number, name, arguments, results, maxReplySize, true);
    }

    /** The procedure number. */
    public int number() {
        return number;
    }

    /** The name (metrics, JMX, logs). */
    public String name() {
        return name;
    }

    /** The arguments' codec. */
    public XdrCodec<A> arguments() {
        return arguments;
    }

    /** The results' codec. */
    public XdrCodec<R> results() {
        return results;
    }

    /** The declared largest reply, 0 if none. */
    public int maxReplySize() {
        return maxReplySize;
    }

    /** Whether the implementation blocks. */
    public boolean isBlocking() {
        return blocking;
    }

    @Override
    public String toString() {
        return name + '(' + number + (maxReplySize > 0 ? ", maxReply=" + maxReplySize : "")
                + (blocking ? ", blocking" : "") + ')';
    }
}
