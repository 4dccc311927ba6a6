package dev.rpcrdma.oncrpc4j;

import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaFraming;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.tcp.RecordMarkingDecoder;
import dev.rpcrdma.oncrpc.tcp.RecordMarkingEncoder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.util.internal.ObjectUtil;
import org.dcache.oncrpc4j.rpc.IoStrategy;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.gss.GssSessionManager;

import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * Serves dCache oncrpc4j programs (what {@code OncRpcSvcBuilder.withRpcService} takes; nfs4j's NFSv4.1 server is
 * one) on Netty channels: over RPC-over-RDMA through {@link RpcRdmaFraming}'s byte framing, with the RFC 8167
 * backchannel behind {@code getPeerTransport()}, or over TCP with record marking. On a client channel the same
 * initializers give an {@link RpcTransport} for oncrpc4j's own calls. {@link #of(Map)} runs the programs on the
 * event loop ({@link IoStrategy#SAME_THREAD}), {@link #of(Map, ExecutorService)} on the caller's executor
 * ({@link IoStrategy#WORKER_THREAD}, for programs that block). Immutable.
 */
public final class OncRpcBridge {

    /** The largest RPC record accepted over TCP (oncrpc4j's own limit is 512 KiB per Xdr plus file chunks). */
    public static final int MAX_TCP_RECORD = 4 << 20;

    private final Map<OncRpcProgram, RpcDispatchable> programs;
    private final ExecutorService executor;
    private final RpcRdmaFraming framing;
    /** RPCSEC_GSS contexts, as {@code OncRpcSvcBuilder.withGssSessionManager} takes them; null: no RPCSEC_GSS. */
    private final GssSessionManager gss;

    private OncRpcBridge(Map<OncRpcProgram, RpcDispatchable> programs, ExecutorService executor,
                         RpcRdmaFraming framing) {
        this(programs, executor, framing, null);
    }

    private OncRpcBridge(Map<OncRpcProgram, RpcDispatchable> programs, ExecutorService executor,
                         RpcRdmaFraming framing, GssSessionManager gss) {
        this.programs = Map.copyOf(ObjectUtil.checkNotNull(programs, "programs"));
        this.executor = executor;
        this.framing = ObjectUtil.checkNotNull(framing, "framing");
        this.gss = gss;
    }

    /**
     * A bridge serving {@code programs} (none, for a client that only calls) on {@code executor}, over RDMA with
     * {@link RpcRdmaConfig#DEFAULT} and the backchannel: each call is handed to the executor
     * ({@link IoStrategy#WORKER_THREAD}), so a program may block. The caller owns the executor and shuts it down.
     */
    public static OncRpcBridge of(Map<OncRpcProgram, RpcDispatchable> programs, ExecutorService executor) {
        return new OncRpcBridge(programs, ObjectUtil.checkNotNull(executor, "executor"),
                RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBackchannel());
    }

    /**
     * A bridge serving {@code programs} on the event loop of each connection, in the read that brought the call
     * ({@link IoStrategy#SAME_THREAD}, oncrpc4j's default strategy): no thread hand-off and no wake-up per call. A
     * program must then not block (no disk or lock waits, no synchronous call back to the client: its reply would
     * arrive on the loop the program holds); use {@link #of(Map, ExecutorService)} for those.
     */
    public static OncRpcBridge of(Map<OncRpcProgram, RpcDispatchable> programs) {
        return new OncRpcBridge(programs, null, RpcRdmaFraming.of(RpcRdmaConfig.DEFAULT).withBackchannel());
    }

    /** Where programs run: {@link IoStrategy#SAME_THREAD} (the event loop) or {@link IoStrategy#WORKER_THREAD}. */
    public IoStrategy ioStrategy() {
        return executor == null ? IoStrategy.SAME_THREAD : IoStrategy.WORKER_THREAD;
    }

    /**
     * With this RDMA framing (its configuration, binding and counters). The backchannel is turned on whatever it
     * says: oncrpc4j calls in both directions on one connection.
     */
    public OncRpcBridge withFraming(RpcRdmaFraming framing) {
        return new OncRpcBridge(programs, executor, framing.withBackchannel(), gss);
    }

    /**
     * With RPCSEC_GSS (RFC 2203) by oncrpc4j's own {@link GssSessionManager}, as
     * {@code OncRpcSvcBuilder.withGssSessionManager(manager)} sets it up over TCP: oncrpc4j's GSS filter creates and
     * destroys contexts, checks each call's verifier and sequence, unwraps krb5i/krb5p arguments, fills
     * {@code call.getCredential().getSubject()} from the manager's login service and protects the reply; the
     * programs run unchanged. It runs on the executor (the login service may block), or on the event loop for a
     * bridge made without one ({@link #of(Map)}, SAME_THREAD: only where the login service never blocks). Over RDMA a krb5i/krb5p call or
     * reply is never reduced by DDP (RFC 8166 §8.2.2): the byte framing moves no data items at all.
     */
    public OncRpcBridge withGssSessionManager(GssSessionManager manager) {
        return new OncRpcBridge(programs, executor, framing, ObjectUtil.checkNotNull(manager, "manager"));
    }

    /** The RDMA framing (its counters: {@code framing().stats()}). */
    public RpcRdmaFraming framing() {
        return framing;
    }

    /** The initializer of RDMA channels (server: {@code childHandler}; client: {@code handler}). */
    public ChannelInitializer<Channel> rdma() {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                boolean server = ch.parent() != null;
                ch.pipeline().addLast("rpcRdmaFraming", server ? framing.responder(ch) : framing.requester(ch));
                ch.pipeline().addLast("oncrpc4j", new OncRpcBridgeHandler(programs, executor, gss));
            }
        };
    }

    /** The initializer of TCP channels (server: {@code childHandler}; client: {@code handler}). */
    public ChannelInitializer<Channel> tcp() {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast("recordDecoder", new RecordMarkingDecoder(MAX_TCP_RECORD, new RpcStats()));
                ch.pipeline().addLast("recordEncoder", new RecordMarkingEncoder(MAX_TCP_RECORD));
                ch.pipeline().addLast("oncrpc4j", new OncRpcBridgeHandler(programs, executor, gss));
            }
        };
    }

    /**
     * The oncrpc4j transport of a channel set up by {@link #rdma()} or {@link #tcp()} (e.g. a connected client's,
     * to make calls with {@code new RpcCall(prog, vers, auth, transport)}).
     *
     * @throws IllegalArgumentException the channel has no bridge
     */
    public static RpcTransport transport(Channel channel) {
        OncRpcBridgeHandler h = channel.pipeline().get(OncRpcBridgeHandler.class);
        if (h == null) {
            throw new IllegalArgumentException(channel + " was not set up by an OncRpcBridge");
        }
        return h.transport();
    }

    @Override
    public String toString() {
        return "OncRpcBridge(programs=" + programs.keySet() + ", " + ioStrategy() + ", " + framing + ')';
    }
}
