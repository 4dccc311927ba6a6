package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.tcp.TcpRpcClientInitializer;
import dev.rpcrdma.oncrpc.tcp.TcpRpcConfig;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Just enough of an NFSv4.1 client for the host tests, on {@link RpcClient} over TCP: EXCHANGE_ID,
 * CREATE_SESSION with a backchannel, compounds built with {@link Compound} and parsed with {@link Reply}, and a
 * callback service answering CB_COMPOUND (CB_SEQUENCE + CB_RECALL) that queues each recall for the test.
 * Blocking; used from the test thread only (the callback service runs on the event loop).
 */
final class Nfs4TestClient implements AutoCloseable {
    static final int CB_PROGRAM = 0x40000000;
    static final CallOptions OPTIONS = CallOptions.DEFAULT
            .withCredential(new AuthSysCredential(1, "test", 0, 0).toOpaqueAuth())
            .withTimeout(Duration.ofSeconds(30))
            // Over RDMA: a Write chunk for a READ's data and a Reply chunk for a large reply (TCP ignores hints).
            .withReplyHints(1 << 20, (1 << 20) + 65536);

    /** A recall received over the backchannel: the delegation stateid and the file handle. */
    record Recall(byte[] stateid, byte[] fh) {
    }

    final Channel channel;
    final RpcClient rpc;
    final String owner;
    final BlockingQueue<Recall> recalls = new LinkedBlockingQueue<>();
    /** The credential of each CB_COMPOUND received, in order. */
    final BlockingQueue<dev.rpcrdma.oncrpc.message.OpaqueAuth> callbackCredentials = new LinkedBlockingQueue<>();
    /** The options (credential) of this client's forward calls. */
    CallOptions options = OPTIONS;
    /** The client owner's verifier (co_verifier): a new one is a new incarnation (a client restart). */
    byte[] verifier = new byte[8];
    /** eir_flags of the last successful EXCHANGE_ID. */
    int exchangeFlags;
    long clientid;
    int createSessionSeq;
    byte[] sessionId;
    int slotSeq;
    int lastCbSeq;

    private Nfs4TestClient(Channel channel, String owner) {
        this.channel = channel;
        this.rpc = RpcClient.of(channel);
        this.owner = owner;
    }

    /** Connects over TCP. */
    static Nfs4TestClient connect(EventLoopGroup group, InetSocketAddress server, String owner) throws Exception {
        return connect(group, server, owner, null);
    }

    /** Connects over TCP; the callback service checks RPCSEC_GSS callbacks with {@code gssCallbacks} (or none). */
    static Nfs4TestClient connect(EventLoopGroup group, InetSocketAddress server, String owner,
                                  dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator gssCallbacks) throws Exception {
        return connect(server, owner, callbacks -> new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new TcpRpcClientInitializer(new RpcStats(), TcpRpcConfig.DEFAULT, Duration.ofSeconds(30))
                        .withCallbacks(gssCallbacks == null ? callbacks : callbacks.withAuthenticator(gssCallbacks))));
    }

    /** Connects over RPC-over-RDMA ({@code group} runs RDMA channels on some fabric). */
    static Nfs4TestClient connectRdma(EventLoopGroup group, InetSocketAddress server, String owner) throws Exception {
        return connectRdma(group, server, owner, null);
    }

    /** Connects over RPC-over-RDMA; RPCSEC_GSS callbacks are checked with {@code gssCallbacks} (or none). */
    static Nfs4TestClient connectRdma(EventLoopGroup group, InetSocketAddress server, String owner,
                                      dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator gssCallbacks) throws Exception {
        return connect(server, owner, callbacks -> new Bootstrap().group(group)
                .channel(dev.rpcrdma.channel.RdmaChannel.class)
                .handler(new dev.rpcrdma.handlers.RpcRdmaClientInitializer(new RpcStats(),
                        dev.rpcrdma.handlers.RpcRdmaConfig.DEFAULT, new dev.rpcrdma.handlers.RpcRdmaStats(),
                        Duration.ofSeconds(30)).withCallbacks(gssCallbacks == null ? callbacks
                        : callbacks.withAuthenticator(gssCallbacks))));
    }

    private static Nfs4TestClient connect(InetSocketAddress server, String owner,
                                          java.util.function.Function<RpcDispatcher, Bootstrap> bootstrap)
            throws Exception {
        Nfs4TestClient[] self = new Nfs4TestClient[1];
        RpcProgramRegistry callbacks = new RpcProgramRegistry().registerNull(CB_PROGRAM, 1)
                .register(CB_PROGRAM, 1, 1, (call, args) -> self[0].cbCompound(call, args));
        Channel ch = bootstrap.apply(new RpcDispatcher(callbacks, new RpcStats())).connect(server).sync().channel();
        self[0] = new Nfs4TestClient(ch, owner);
        return self[0];
    }

    /** CB_COMPOUND (RFC 5661 §20): checks CB_SEQUENCE, queues CB_RECALL, answers NFS4_OK. */
    private void cbCompound(RpcCallContext call, XdrReader in) throws XdrException {
        callbackCredentials.add(call.call().credential());
        String tag = in.readString(1024);
        in.readInt();
        in.readInt();
        int n = in.readArrayLength(8, 4);
        XdrPayload out = call.newPayload();
        XdrWriter w = out.writer();
        w.writeInt(0).writeString(tag).writeInt(n);
        for (int i = 0; i < n; i++) {
            int op = in.readInt();
            w.writeInt(op).writeInt(0);
            if (op == Nfs4.CB_SEQUENCE) {
                byte[] sid = in.readFixedOpaque(16);
                int seq = in.readInt();
                int slot = in.readInt();
                int highest = in.readInt();
                in.readBool();
                int lists = in.readArrayLength(8, 4);
                if (lists != 0) {
                    throw new XdrException("referring call lists not expected");
                }
                lastCbSeq = seq;
                w.writeFixedOpaque(sid).writeInt(seq).writeInt(slot).writeInt(highest).writeInt(highest);
            } else if (op == Nfs4.CB_RECALL) {
                byte[] stateid = in.readFixedOpaque(16);
                in.readBool();
                recalls.add(new Recall(stateid, in.readOpaque(128)));
            } else {
                throw new XdrException("unexpected callback op " + op);
            }
        }
        call.replySuccess(out);
    }

    // ------------------------------------------------------------------ sessions

    void exchangeId() throws Exception {
        int status = exchangeId(0);
        if (status != 0) {
            throw new AssertionError("EXCHANGE_ID failed with " + status);
        }
    }

    /**
     * EXCHANGE_ID with {@link #verifier} and {@code flags}; returns its status, and on NFS4_OK takes the client id,
     * the sequence and the reply flags ({@link #exchangeFlags}).
     */
    int exchangeId(int flags) throws Exception {
        Compound c = new Compound().op(Nfs4.OP_EXCHANGE_ID);
        c.w.writeFixedOpaque(verifier).writeOpaque(owner.getBytes(StandardCharsets.UTF_8))
                .writeInt(flags).writeInt(Nfs4.SP4_NONE).writeInt(0);
        Reply r = call(c);
        int status = r.next(Nfs4.OP_EXCHANGE_ID);
        if (status != 0) {
            return status;
        }
        clientid = r.in.readHyper();
        createSessionSeq = r.in.readInt();
        int replyFlags = r.in.readInt();
        if ((replyFlags & Nfs4.EXCHGID4_FLAG_USE_NON_PNFS) == 0) {
            throw new AssertionError("no pNFS role flag: " + Integer.toHexString(replyFlags));
        }
        exchangeFlags = replyFlags;
        return 0;
    }

    /** csa_sec_parms: AUTH_SYS stamp 0, machine "test", uid 0, gid 0 (what the Linux client offers). */
    static void rootSecParms(XdrWriter w) {
        w.writeInt(1).writeInt(1).writeInt(0).writeString("test").writeInt(0).writeInt(0).writeInt(0);
    }

    /**
     * A CREATE_SESSION with everything given: flags, both channels' attributes and csa_sec_parms (written by
     * {@code secParms}). Returns the reply with CREATE_SESSION's status read; on NFS4_OK the session is this
     * client's.
     */
    Reply createSession(int flags, ChannelAttrs fore, ChannelAttrs back,
                        java.util.function.Consumer<XdrWriter> secParms) throws Exception {
        if ((flags & Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0) {
            RpcBackchannel.of(channel).enable();
        }
        Compound c = new Compound().op(Nfs4.OP_CREATE_SESSION);
        c.w.writeHyper(clientid).writeInt(createSessionSeq).writeInt(flags);
        fore.encode(c.w);
        back.encode(c.w);
        c.w.writeInt(CB_PROGRAM);
        secParms.accept(c.w);
        Reply r = call(c);
        r.createSessionStatus = r.next(Nfs4.OP_CREATE_SESSION);
        if (r.createSessionStatus == 0) {
            sessionId = r.in.readFixedOpaque(16);
            r.in.readInt();
            createSessionSeq++;
            slotSeq = 0;
        }
        return r;
    }

    /** CREATE_SESSION asking for ca_maxoperations {@code maxOps}, a request size limit, and (optionally) callbacks. */
    Reply createSession(boolean backchannel, int maxOps, int maxRequestSize) throws Exception {
        Reply r = createSession(Nfs4.CREATE_SESSION4_FLAG_PERSIST
                        | (backchannel ? Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN : 0),
                new ChannelAttrs(0, maxRequestSize, (1 << 20) + 8192, 8192, maxOps, 16),
                new ChannelAttrs(0, 4068, 4068, 0, 2, 16), Nfs4TestClient::rootSecParms);
        if (r.createSessionStatus != 0) {
            throw new AssertionError("CREATE_SESSION failed with " + r.createSessionStatus);
        }
        return r;
    }

    void mount() throws Exception {
        exchangeId();
        createSession(true, 8, (1 << 20) + 8192);
        Reply r = call(sequenced().op(Nfs4.OP_RECLAIM_COMPLETE).bool(false));
        r.sequenceFlags();
        r.ok(Nfs4.OP_RECLAIM_COMPLETE);
    }

    /** A compound starting with SEQUENCE on slot 0 with the next sequence id. */
    Compound sequenced() {
        return sequence(sessionId, ++slotSeq, 0, false);
    }

    Compound sequence(byte[] session, int seqid, int slot, boolean cacheThis) {
        Compound c = new Compound().op(Nfs4.OP_SEQUENCE);
        c.w.writeFixedOpaque(session).writeInt(seqid).writeInt(slot).writeInt(slot).writeBool(cacheThis);
        return c;
    }

    Reply call(Compound c) throws Exception {
        return new Reply(callRaw(c));
    }

    byte[] callRaw(Compound c) throws Exception {
        return rpc.callAndWait(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, c.payload(rpc), r -> {
            ByteBuf b = r.buffer();
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            return bytes;
        }, options);
    }

    /**
     * SEQUENCE + PUTFH + READ, decoded in the reply decoder itself: over RDMA the data was placed by a Write chunk
     * and only {@link XdrReader#readDdpOpaque} finds it. Returns the data (the test checks eof separately).
     */
    byte[] read(byte[] fh, byte[] stateid, long offset, int count) throws Exception {
        Compound c = sequenced().putfh(fh).read(stateid, offset, count);
        return rpc.callAndWait(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, c.payload(rpc), r -> {
            if (r.readInt() != 0) {
                throw new XdrException("READ compound failed");
            }
            r.readString(1024);
            r.readInt();
            r.readInt();
            r.readInt();
            r.readFixedOpaque(16 + 5 * 4); // SEQUENCE4resok
            r.readInt();
            r.readInt(); // PUTFH
            r.readInt();
            r.readInt();
            r.readBool();
            ByteBuf data = r.readDdpOpaque(count);
            try {
                byte[] bytes = new byte[data.readableBytes()];
                data.readBytes(bytes);
                return bytes;
            } finally {
                data.release();
            }
        }, options);
    }

    Recall awaitRecall(long seconds) throws InterruptedException {
        return recalls.poll(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        channel.close().sync();
    }

    // ------------------------------------------------------------------ compounds

    /** A COMPOUND being built (RFC 5661 §16.2.1): the header, then operations and their arguments. */
    static final class Compound {
        final ByteBuf body = io.netty.buffer.Unpooled.buffer();
        final XdrWriter w = new XdrWriter(body);
        int ops;
        int minor = 1;
        Integer count;

        Compound op(int op) {
            ops++;
            w.writeInt(op);
            return this;
        }

        Compound bool(boolean b) {
            w.writeBool(b);
            return this;
        }

        Compound putrootfh() {
            return op(Nfs4.OP_PUTROOTFH);
        }

        Compound putfh(byte[] fh) {
            op(Nfs4.OP_PUTFH).w.writeOpaque(fh);
            return this;
        }

        Compound lookupp() {
            return op(Nfs4.OP_LOOKUPP);
        }

        Compound getfh() {
            return op(Nfs4.OP_GETFH);
        }

        Compound lookup(String name) {
            op(Nfs4.OP_LOOKUP).w.writeString(name);
            return this;
        }

        Compound getattr(int... attrs) {
            op(Nfs4.OP_GETATTR);
            Attributes.writeBitmap(w, Attributes.bitmap(attrs));
            return this;
        }

        Compound mkdir(String name) {
            op(Nfs4.OP_CREATE).w.writeInt(Nfs4.NF4DIR).writeString(name);
            Attributes.writeBitmap(w, Attributes.bitmap(Attributes.MODE));
            w.writeInt(4).writeInt(0755);
            return this;
        }

        Compound remove(String name) {
            op(Nfs4.OP_REMOVE).w.writeString(name);
            return this;
        }

        /** OPEN by name in the current directory; UNCHECKED4 create with mode 0644 if {@code create}. */
        Compound open(String owner, int access, boolean create, String name) {
            op(Nfs4.OP_OPEN).w.writeInt(0).writeInt(access).writeInt(0).writeHyper(0)
                    .writeOpaque(owner.getBytes(StandardCharsets.UTF_8));
            if (create) {
                w.writeInt(Nfs4.OPEN4_CREATE).writeInt(Nfs4.UNCHECKED4);
                Attributes.writeBitmap(w, Attributes.bitmap(Attributes.MODE));
                w.writeInt(4).writeInt(0644);
            } else {
                w.writeInt(Nfs4.OPEN4_NOCREATE);
            }
            w.writeInt(Nfs4.CLAIM_NULL).writeString(name);
            return this;
        }

        /** OPEN by name with an explicit create mode and verifier (GUARDED4, EXCLUSIVE4_1) or CLAIM_FH (null name). */
        Compound openHow(String owner, int access, int deny, int createMode, byte[] verifier, String name) {
            op(Nfs4.OP_OPEN).w.writeInt(0).writeInt(access).writeInt(deny).writeHyper(0)
                    .writeOpaque(owner.getBytes(StandardCharsets.UTF_8));
            if (createMode < 0) {
                w.writeInt(Nfs4.OPEN4_NOCREATE);
            } else {
                w.writeInt(Nfs4.OPEN4_CREATE).writeInt(createMode);
                if (createMode == Nfs4.EXCLUSIVE4_1) {
                    w.writeFixedOpaque(verifier);
                }
                Attributes.writeBitmap(w, Attributes.bitmap(Attributes.MODE));
                w.writeInt(4).writeInt(0600);
            }
            if (name == null) {
                w.writeInt(Nfs4.CLAIM_FH);
            } else {
                w.writeInt(Nfs4.CLAIM_NULL).writeString(name);
            }
            return this;
        }

        Compound close(byte[] stateid) {
            op(Nfs4.OP_CLOSE).w.writeInt(0).writeFixedOpaque(stateid);
            return this;
        }

        Compound read(byte[] stateid, long offset, int count) {
            op(Nfs4.OP_READ).w.writeFixedOpaque(stateid).writeHyper(offset).writeInt(count);
            return this;
        }

        Compound write(byte[] stateid, long offset, byte[] data, int stable) {
            op(Nfs4.OP_WRITE).w.writeFixedOpaque(stateid).writeHyper(offset).writeInt(stable).writeOpaque(data);
            return this;
        }

        Compound stateidOp(int op, byte[] stateid) {
            op(op).w.writeFixedOpaque(stateid);
            return this;
        }

        XdrPayload payload(RpcClient rpc) {
            ByteBuf all = rpc.alloc().buffer();
            XdrWriter h = new XdrWriter(all);
            h.writeString("").writeInt(minor).writeInt(count != null ? count : ops);
            all.writeBytes(body);
            body.release();
            return XdrPayload.wrap(rpc.alloc(), all);
        }
    }

    /** A COMPOUND reply being read: the header, then each operation's number, status and results. */
    static final class Reply {
        final byte[] bytes;
        final XdrReader in;
        final int status;
        final int count;
        /** CREATE_SESSION's status, when {@link #createSession(int, ChannelAttrs, ChannelAttrs,
         * java.util.function.Consumer)} made this reply. */
        int createSessionStatus;

        Reply(byte[] bytes) throws XdrException {
            this.bytes = bytes;
            in = new XdrReader(io.netty.buffer.Unpooled.wrappedBuffer(bytes));
            status = in.readInt();
            in.readString(1024);
            count = in.readInt();
        }

        /** Reads the next operation's header: it must be {@code op}; returns its status. */
        int next(int op) throws XdrException {
            int got = in.readInt();
            if (got != op) {
                throw new AssertionError("expected op " + op + ", got " + got);
            }
            return in.readInt();
        }

        Reply ok(int op) throws XdrException {
            int s = next(op);
            if (s != 0) {
                throw new AssertionError("op " + op + " failed with " + s);
            }
            return this;
        }

        /** Skips a SEQUENCE result; returns its status flags. */
        int sequenceFlags() throws XdrException {
            ok(Nfs4.OP_SEQUENCE);
            in.readFixedOpaque(16);
            in.readInt();
            in.readInt();
            in.readInt();
            in.readInt();
            return in.readInt();
        }

        byte[] fh() throws XdrException {
            ok(Nfs4.OP_GETFH);
            return in.readOpaque(128);
        }

        /** Skips an fattr4 and returns its attribute values as a reader over their bytes. */
        XdrReader fattr() throws XdrException {
            Attributes.readBitmap(in);
            return new XdrReader(io.netty.buffer.Unpooled.wrappedBuffer(in.readOpaque(1 << 20)));
        }

        /** An OPEN result: [open stateid, delegation stateid or null]. */
        byte[][] open() throws XdrException {
            ok(Nfs4.OP_OPEN);
            byte[] stateid = in.readFixedOpaque(16);
            in.readBool();
            in.readHyper();
            in.readHyper();
            in.readInt();
            Attributes.readBitmap(in);
            int type = in.readInt();
            byte[] deleg = null;
            if (type == Nfs4.OPEN_DELEGATE_READ) {
                deleg = in.readFixedOpaque(16);
                in.readBool();
                in.readInt();
                in.readInt();
                in.readInt();
                in.readString(1024);
            } else if (type != Nfs4.OPEN_DELEGATE_NONE) {
                throw new AssertionError("delegation type " + type);
            }
            return new byte[][] {stateid, deleg};
        }
    }
}
