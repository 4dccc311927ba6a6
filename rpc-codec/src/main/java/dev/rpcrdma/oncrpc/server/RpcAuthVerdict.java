package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.ObjectUtil;

/**
 * What an {@link RpcAuthenticator} decided about one call: run it (with the arguments as received, or unwrapped),
 * answer it on the flavor's behalf (context creation, a GARBAGE_ARGS with a verifier), refuse it with an AUTH_ERROR,
 * or drop it silently (RFC 2203 §5.3.3.1: a replayed or out-of-window sequence number).
 */
public final class RpcAuthVerdict {

    /** The kinds of verdict. */
    public enum Kind {
        /** Run the procedure. */
        ACCEPT,
        /** Send {@link #reply()}; no procedure runs. */
        ANSWER,
        /** MSG_DENIED AUTH_ERROR {@link #authStat()}. */
        DENY,
        /** No answer at all. */
        DROP
    }

    private static final RpcAuthVerdict DROP = new RpcAuthVerdict(Kind.DROP, null, null, null, null);

    private final Kind kind;
    private final RpcCallAuth auth;
    private final ByteBuf arguments;
    private final OutboundRpcMessage reply;
    private final AuthStat authStat;

    private RpcAuthVerdict(Kind kind, RpcCallAuth auth, ByteBuf arguments, OutboundRpcMessage reply,
                           AuthStat authStat) {
        this.kind = kind;
        this.auth = auth;
        this.arguments = arguments;
        this.reply = reply;
        this.authStat = authStat;
    }

    /**
     * Run the call as {@code auth}; {@code arguments} are the unwrapped arguments (integrity, privacy; the verdict
     * owns them and the dispatcher releases them after the procedure) or null for the message's own body.
     */
    public static RpcAuthVerdict accept(RpcCallAuth auth, ByteBuf arguments) {
        return new RpcAuthVerdict(Kind.ACCEPT, ObjectUtil.checkNotNull(auth, "auth"), arguments, null, null);
    }

    /** Answer with {@code reply} (owned by the verdict until the dispatcher writes it). */
    public static RpcAuthVerdict answer(OutboundRpcMessage reply) {
        return new RpcAuthVerdict(Kind.ANSWER, null, null, ObjectUtil.checkNotNull(reply, "reply"), null);
    }

    /** Refuse with MSG_DENIED AUTH_ERROR {@code why}. */
    public static RpcAuthVerdict deny(AuthStat why) {
        return new RpcAuthVerdict(Kind.DENY, null, null, null, ObjectUtil.checkNotNull(why, "why"));
    }

    /** Drop the call without an answer. */
    public static RpcAuthVerdict drop() {
        return DROP;
    }

    /** The kind. */
    public Kind kind() {
        return kind;
    }

    /** ACCEPT: how the call was authenticated. */
    public RpcCallAuth auth() {
        return auth;
    }

    /** ACCEPT: the unwrapped arguments, or null. */
    public ByteBuf arguments() {
        return arguments;
    }

    /** ANSWER: the reply. */
    public OutboundRpcMessage reply() {
        return reply;
    }

    /** DENY: the reason. */
    public AuthStat authStat() {
        return authStat;
    }

    @Override
    public String toString() {
        return "RpcAuthVerdict(" + kind + (authStat != null ? " " + authStat : "") + ')';
    }
}
