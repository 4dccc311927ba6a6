package dev.rpcrdma.oncrpc.gss;

import dev.rpcrdma.oncrpc.client.BlockingRpcClient;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcCallSecurity;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcException;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.ObjectUtil;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;

import java.io.IOException;

/**
 * The client side of an RPCSEC_GSS version 1 context (RFC 2203) with one server program: {@link #establish} runs
 * the INIT / CONTINUE_INIT exchange (§5.2) on the calling thread (the JDK initiator asks the KDC for a service
 * ticket: never on an event loop); then calls made with {@link #callOptions()} (or any {@link CallOptions}
 * {@code .withSecurity(context)}) carry the credential and the header MIC, their arguments protected by the
 * context's service, and fail with {@link RpcGssException} when a reply's verifier or protected results do not
 * verify. {@link #destroy} ends the context on the server (§5.4). Thread-safe; usable on several connections to
 * the same server. Keep fewer calls in flight than {@link #window()}: the server drops calls below its window.
 */
public final class RpcGssClientContext implements RpcCallSecurity {

    /** Largest INIT result token accepted from a server. */
    private static final int MAX_TOKEN = 64 * 1024;

    private final GSSContext gss;
    private final byte[] handle;
    private final RpcGssService service;
    private final int window;
    private final int program;
    private final int version;
    private final GssCaller caller;
    /** The contexts of {@link #callbackAuthenticator}s: they end with this one. */
    private final java.util.List<GssServerContext> backs = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean destroyed;

    private RpcGssClientContext(GSSContext gss, byte[] handle, RpcGssService service, int window, int program,
                                int version) {
        this.gss = gss;
        this.handle = handle;
        this.service = service;
        this.window = window;
        this.program = program;
        this.version = version;
        this.caller = new GssCaller(gss, handle, service, new java.util.concurrent.atomic.AtomicInteger(), () -> {
            if (destroyed) {
                throw new RpcGssException("the RPCSEC_GSS context was destroyed");
            }
        });
    }

    /** One call of the context-creation exchange: a way to call NULL of the program, whatever client is used. */
    private interface NullCaller {
        <T> T call(XdrPayload args, RpcReplyDecoder<T> decoder, CallOptions options) throws Exception;
    }

    /**
     * Creates a context with the server of {@code client} for {@code program}/{@code version}, as
     * {@code initiator} (e.g. {@link Krb5Credentials#initiator}; null: the JDK's default) towards {@code target}
     * (e.g. {@link Krb5Credentials#principalName}{@code ("nfs/server@REALM")}). Blocks the calling thread.
     *
     * @throws RpcGssException the server refused (its GSS status), or its final verifier does not verify
     * @throws GSSException    the local mechanism failed (no ticket for the target, an unusable credential)
     */
    public static RpcGssClientContext establish(RpcClient client, int program, int version,
                                                GSSCredential initiator, GSSName target, RpcGssService service)
            throws RpcException, GSSException, InterruptedException {
        ObjectUtil.checkNotNull(client, "client");
        try {
            return establish(new NullCaller() {
                @Override
                public <T> T call(XdrPayload args, RpcReplyDecoder<T> decoder, CallOptions options)
                        throws Exception {
                    return client.callAndWait(program, version, 0, args, decoder, options);
                }
            }, program, version, initiator, target, service);
        } catch (RpcException | GSSException | InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new RpcException("RPCSEC_GSS context creation failed: " + e, e);
        }
    }

    /** {@link #establish(RpcClient, int, int, GSSCredential, GSSName, RpcGssService)} over a blocking client. */
    public static RpcGssClientContext establish(BlockingRpcClient client, int program, int version,
                                                GSSCredential initiator, GSSName target, RpcGssService service)
            throws RpcException, GSSException, IOException, XdrException {
        ObjectUtil.checkNotNull(client, "client");
        try {
            return establish(new NullCaller() {
                @Override
                public <T> T call(XdrPayload args, RpcReplyDecoder<T> decoder, CallOptions options)
                        throws Exception {
                    return client.call(program, version, 0, args, decoder, options);
                }
            }, program, version, initiator, target, service);
        } catch (RpcException | GSSException | IOException | XdrException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new RpcException("RPCSEC_GSS context creation failed: " + e, e);
        }
    }

    private static RpcGssClientContext establish(NullCaller caller, int program, int version,
                                                 GSSCredential initiator, GSSName target, RpcGssService service)
            throws Exception {
        ObjectUtil.checkNotNull(target, "target");
        ObjectUtil.checkNotNull(service, "service");
        GSSContext gss = GSSManager.getInstance().createContext(target, Krb5Credentials.KRB5_MECHANISM, initiator,
                GSSContext.DEFAULT_LIFETIME);
        boolean done = false;
        try {
            gss.requestMutualAuth(true);
            // Every service may be used on a context (RFC 2203 §5.3.2: the service is per request; NFSv4.1
            // callbacks may ask for privacy on a krb5i context), so ask for confidentiality as the Linux client does.
            gss.requestConf(true);
            gss.requestInteg(true);
            // RPCSEC_GSS has its own sequence window; requests legitimately arrive out of order (RFC 2203 §5.3.3.1).
            gss.requestReplayDet(false);
            gss.requestSequenceDet(false);
            byte[] handle = new byte[0];
            byte[] input = new byte[0];
            RpcGssInitRes res = null;
            while (true) {
                byte[] token = gss.initSecContext(input, 0, input.length);
                if (token == null || token.length == 0) {
                    if (gss.isEstablished() && res != null && res.major == RpcGssInitRes.GSS_S_COMPLETE) {
                        break;
                    }
                    throw new RpcGssException("the GSS mechanism produced no token before the context was established");
                }
                InitCall init = new InitCall(res == null ? RpcGssCred.INIT : RpcGssCred.CONTINUE_INIT, service,
                        handle);
                XdrPayload args = XdrPayload.newPayload(ByteBufAllocator.DEFAULT);
                args.writer().writeOpaque(token);
                res = caller.call(args, in -> RpcGssInitRes.decode(in, MAX_TOKEN),
                        CallOptions.DEFAULT.withSecurity(init));
                if (res.major != RpcGssInitRes.GSS_S_COMPLETE && res.major != RpcGssInitRes.GSS_S_CONTINUE_NEEDED) {
                    throw new RpcGssException("the server refused the RPCSEC_GSS context: GSS major 0x"
                            + Integer.toHexString(res.major) + " minor " + res.minor, res.major, res.minor, null);
                }
                handle = res.handle;
                input = res.token;
                if (res.major == RpcGssInitRes.GSS_S_COMPLETE) {
                    if (!gss.isEstablished()) {
                        if (input.length == 0) {
                            throw new RpcGssException("the server completed a context the mechanism has not");
                        }
                        token = gss.initSecContext(input, 0, input.length);
                        if (!gss.isEstablished()) {
                            throw new RpcGssException("the context is not established after the server's last token");
                        }
                    }
                    OpaqueAuth v = init.verifier;
                    if (v == null || !AuthFlavor.RPCSEC_GSS.equals(v.flavor())
                            || !GssBody.verifyMic(gss, v.body(), GssBody.intBytes(res.window))) {
                        throw new RpcGssException("the verifier of the server's sequence window does not verify");
                    }
                    if (handle.length == 0 || res.window <= 0) {
                        throw new RpcGssException("the server completed a context without a handle or window");
                    }
                    break;
                }
            }
            RpcGssClientContext context = new RpcGssClientContext(gss, handle, service, res.window, program,
                    version);
            done = true;
            return context;
        } finally {
            if (!done) {
                gss.dispose();
            }
        }
    }

    /** Options that make calls under this context (default timeout, no RDMA reply hints). */
    public CallOptions callOptions() {
        return CallOptions.DEFAULT.withSecurity(this);
    }

    /** The service protecting each call's arguments and results. */
    public RpcGssService service() {
        return service;
    }

    /** The sequence window the server offered (RFC 2203 §5.2.3.1). */
    public int window() {
        return window;
    }

    /** The context handle the server gave (RFC 2203 §5.2.3.1), e.g. for NFSv4.1's {@code gcbp_handle_from_server}. */
    public byte[] handle() {
        return handle.clone();
    }

    /**
     * The accepting side of the server's callbacks under this context and {@code backHandle} (RFC 5661
     * §2.10.8.2: the same GSS context, the client's handle, a sequence window of its own of this context's size).
     * It ends with this context.
     */
    GssServerContext backContext(byte[] backHandle) {
        String server;
        try {
            synchronized (gss) {
                server = gss.getTargName().toString();
            }
        } catch (GSSException e) {
            throw new IllegalStateException("the context has no target name: " + e.getMessage(), e);
        }
        GssServerContext back = new GssServerContext(new GssServerContext.Handle(backHandle.clone()), server, gss,
                window, false);
        int seconds;
        synchronized (gss) {
            seconds = gss.getLifetime();
        }
        long lifetime = seconds == GSSContext.INDEFINITE_LIFETIME ? Long.MAX_VALUE / 4
                : java.util.concurrent.TimeUnit.SECONDS.toNanos(Math.max(0, seconds));
        back.established(server, server, System.nanoTime() + lifetime);
        backs.add(back);
        if (destroyed) {
            back.dispose();
        }
        return back;
    }

    /** Whether {@link #destroy} ran. */
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Ends the context on the server (RPCSEC_GSS_DESTROY, RFC 2203 §5.4), then locally. Blocks. */
    public void destroy(RpcClient client) throws RpcException, InterruptedException {
        try {
            client.callAndWait(program, version, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                    CallOptions.DEFAULT.withSecurity(new DestroyCall()));
        } finally {
            dispose();
        }
    }

    /** {@link #destroy(RpcClient)} over a blocking client. */
    public void destroy(BlockingRpcClient client) throws RpcException, IOException, XdrException {
        try {
            client.call(program, version, 0, XdrPayload.empty(), RpcReplyDecoder.VOID,
                    CallOptions.DEFAULT.withSecurity(new DestroyCall()));
        } finally {
            dispose();
        }
    }

    private void dispose() {
        destroyed = true;
        for (GssServerContext back : backs) {
            back.dispose();
        }
        try {
            synchronized (gss) {
                gss.dispose();
            }
        } catch (GSSException e) {
            // Released either way.
        }
    }

    @Override
    public Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems, int maxReplySize,
                       XdrPayload args, ByteBufAllocator alloc) throws RpcException {
        return caller.seal(xid, program, version, procedure, replyDdpItems, maxReplySize, args, alloc);
    }

    @Override
    public ByteBuf open(Object state, RpcReply reply, XdrReader results) throws RpcException {
        return caller.open(state, reply, results);
    }

    @Override
    public String toString() {
        return "RpcGssClientContext(" + service + ", window=" + window + (destroyed ? ", destroyed" : "") + ')';
    }

    /** An INIT or CONTINUE_INIT call (§5.2.2): credential without sequence, AUTH_NONE verifier, reply verifier kept. */
    private static final class InitCall implements RpcCallSecurity {
        private final int proc;
        private final RpcGssService service;
        private final byte[] handle;
        volatile OpaqueAuth verifier;

        InitCall(int proc, RpcGssService service, byte[] handle) {
            this.proc = proc;
            this.service = service;
            this.handle = handle;
        }

        @Override
        public Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems,
                           int maxReplySize, XdrPayload args, ByteBufAllocator alloc) {
            OpaqueAuth cred = new RpcGssCred(proc, 0, service, handle).toOpaqueAuth();
            return new Sealed(OutboundRpcMessage.newCall(xid, program, version, procedure, cred, OpaqueAuth.NONE,
                    new int[0], 0, args), null);
        }

        @Override
        public ByteBuf open(Object state, RpcReply reply, XdrReader results) {
            verifier = reply.verifier();
            return null;
        }
    }

    /** The DESTROY call (§5.4): a data-style header, void arguments not wrapped (as Linux does), verifier checked. */
    private final class DestroyCall implements RpcCallSecurity {
        @Override
        public Sealed seal(int xid, int program, int version, int procedure, int[] replyDdpItems,
                           int maxReplySize, XdrPayload args, ByteBufAllocator alloc) throws RpcException {
            try {
                int seq = caller.nextSequence();
                OpaqueAuth[] h = caller.header(RpcGssCred.DESTROY, seq, xid, program, version, procedure);
                return new Sealed(OutboundRpcMessage.newCall(xid, program, version, procedure, h[0], h[1],
                        new int[0], 0, args), seq);
            } catch (GSSException e) {
                args.release();
                throw new RpcGssException("cannot protect the DESTROY call: " + e.getMessage(), e);
            } catch (RpcException | RuntimeException e) {
                args.release();
                throw e;
            }
        }

        @Override
        public ByteBuf open(Object state, RpcReply reply, XdrReader results) throws RpcException {
            caller.checkVerifier(reply, (Integer) state);
            return null;
        }
    }
}
