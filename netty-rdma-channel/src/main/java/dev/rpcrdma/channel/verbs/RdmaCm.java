package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.unix.Libc;
import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvQpCap;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvQpInitAttr;
import dev.rpcrdma.channel.verbs.RdmaCmLayouts.RdmaCmEvent;
import dev.rpcrdma.channel.verbs.RdmaCmLayouts.RdmaCmId;
import dev.rpcrdma.channel.verbs.RdmaCmLayouts.RdmaConnParam;
import dev.rpcrdma.channel.verbs.RdmaCmLayouts.RdmaEventChannel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * The facade over librdmacm ({@code librdmacm.so.1}): connection management. Every call succeeds or throws a
 * {@link NativeCallException} naming the C function and the errno text; objects are {@code long} addresses
 * ({@code rdma_event_channel*}, {@code rdma_cm_id*}). Asynchronous calls return at once and their outcome arrives
 * as an event read with {@link #getCmEvent(long, CmEventCopy)}, which blocks unless the channel fd is non-blocking
 * ({@link Verbs#setNonBlocking(int)}) and acks every event, so that {@link #destroyId(long)} (which waits for the
 * acks of its id) does not block.
 *
 * <p>Teardown order: {@link #disconnect}, wait for DISCONNECTED, {@link #destroyQp}, destroy CQs and completion
 * channels, deregister MRs, deallocate MWs and the PD, {@link #destroyId}, then {@link #destroyEventChannel} once
 * all its ids are gone.
 */
public final class RdmaCm {
    /** Most private data {@link #connect} can carry on IB/RoCE (IB CM REQ minus the RDMA-CM header). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Most private data {@link #accept} can carry on IB/RoCE (IB CM REP). */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Most private data {@link #reject} can carry on IB/RoCE (IB CM REJ). */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    private RdmaCm() {
    }

    private static NativeLibraries.Loaded<LibRdmacm> loaded() {
        return NativeLibraries.Rdmacm.LIB;
    }

    private static LibRdmacm lib() {
        return loaded().get();
    }

    /** Throws {@link UnsatisfiedLinkError} (naming the Debian package) if librdmacm cannot be loaded. */
    public static void ensureLoaded() {
        Throwable cause = loaded().cause;
        if (cause != null) {
            throw (Error) new UnsatisfiedLinkError(cause.getMessage()).initCause(cause);
        }
    }

    /** Why librdmacm could not be loaded, or null. */
    public static Throwable loadFailure() {
        return loaded().cause;
    }

    private static void check(String call, int rc) throws NativeCallException {
        if (rc != 0) {
            throw new NativeCallException(call, loaded().lastError());
        }
    }

    private static long handle(String what, long address) {
        return Verbs.handle(what, address);
    }

    // ---------------------------------------------------------------- event channels

    public static long createEventChannel() throws NativeCallException {
        long channel = lib().rdma_create_event_channel();
        if (channel == 0) {
            throw new NativeCallException("rdma_create_event_channel", loaded().lastError());
        }
        return channel;
    }

    /** Destroy only after every id on the channel has been destroyed (or migrated away). */
    public static void destroyEventChannel(long channel) {
        lib().rdma_destroy_event_channel(handle("channel", channel));
    }

    /** The channel's fd: readable when a CM event is pending. */
    public static int eventChannelFd(long channel) {
        return IO.getInt(handle("channel", channel) + RdmaEventChannel.FD);
    }

    /** What {@link #getCmEvent} makes of one event, copied before the event is acknowledged. */
    @FunctionalInterface
    public interface CmEventCopy<T> {
        /**
         * {@code status} is 0, a negative errno, or for REJECTED the CM reject reason; {@code id} is, for
         * CONNECT_REQUEST, a new id owned by the caller, whose listener is {@code listenId} (else 0);
         * {@code privateData} is the peer's as librdmacm reports it (on IB/RoCE the whole, zero-padded CM message
         * field), never null.
         */
        T copy(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
               int initiatorDepth) throws NativeCallException;
    }

    /**
     * Reads the next event, copies it with {@code copy} and acks it. Blocks while none is pending if the channel fd
     * is blocking; returns null if it is non-blocking and none is pending.
     */
    public static <T> T getCmEvent(long channel, CmEventCopy<T> copy) throws NativeCallException {
        long[] out = new long[1];
        if (lib().rdma_get_cm_event(handle("channel", channel), out) != 0) {
            int errno = loaded().lastError();
            if (errno == Libc.EAGAIN) {
                return null;
            }
            throw new NativeCallException("rdma_get_cm_event", errno);
        }
        long event = out[0];
        try {
            long conn = event + RdmaCmEvent.PARAM_CONN;
            long data = IO.getAddress(conn + RdmaConnParam.PRIVATE_DATA);
            int len = IO.getByte(conn + RdmaConnParam.PRIVATE_DATA_LEN) & 0xFF;
            byte[] privateData = new byte[data == 0 ? 0 : len];
            if (privateData.length > 0) {
                IO.getByteArray(data, privateData, 0, privateData.length);
            }
            return copy.copy(
                    IO.getInt(event + RdmaCmEvent.EVENT),
                    IO.getInt(event + RdmaCmEvent.STATUS),
                    IO.getAddress(event + RdmaCmEvent.ID),
                    IO.getAddress(event + RdmaCmEvent.LISTEN_ID),
                    privateData,
                    IO.getByte(conn + RdmaConnParam.RESPONDER_RESOURCES) & 0xFF,
                    IO.getByte(conn + RdmaConnParam.INITIATOR_DEPTH) & 0xFF);
        } finally {
            check("rdma_ack_cm_event", lib().rdma_ack_cm_event(event));
        }
    }

    private static void checkByte(String name, int value) {
        if (value < 0 || value > 0xFF) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: 0..255)");
        }
    }

    /** {@code rdma_event_str}, e.g. {@code "RDMA_CM_EVENT_ESTABLISHED"}; works without the library too. */
    public static String eventName(int type) {
        if (loaded().library != null) {
            return lib().rdma_event_str(type);
        }
        return "RDMA_CM_EVENT_" + type;
    }

    // ---------------------------------------------------------------- ids

    /**
     * Creates an id on {@code channel} for port space {@code ps} ({@code RDMA_PS_TCP} for reliable connected QPs);
     * {@code context} is an opaque value readable with {@link #context(long)}.
     */
    public static long createId(long channel, long context, int ps) throws NativeCallException {
        long[] id = new long[1];
        check("rdma_create_id", lib().rdma_create_id(handle("channel", channel), id, context, ps));
        return id[0];
    }

    /** Blocks until all events of the id are acked; destroy its QP first ({@link #destroyQp}). */
    public static void destroyId(long id) throws NativeCallException {
        check("rdma_destroy_id", lib().rdma_destroy_id(handle("id", id)));
    }

    /** Moves the id (and its future events) to another event channel. */
    public static void migrateId(long id, long channel) throws NativeCallException {
        check("rdma_migrate_id", lib().rdma_migrate_id(handle("id", id), handle("channel", channel)));
    }

    public static void bindAddr(long id, InetSocketAddress address) throws NativeCallException {
        check("rdma_bind_addr", lib().rdma_bind_addr(handle("id", id), SocketAddresses.encode(address)));
    }

    public static void listen(long id, int backlog) throws NativeCallException {
        check("rdma_listen", lib().rdma_listen(handle("id", id), backlog));
    }

    /**
     * Resolves {@code destination} to an RDMA device and binds the id to it (if not bound); the result arrives as
     * ADDR_RESOLVED or ADDR_ERROR. {@code source} may be null. Fails at once (ENODEV...) when no RDMA device
     * serves the route to the destination.
     */
    public static void resolveAddr(long id, InetSocketAddress source, InetSocketAddress destination, int timeoutMs)
            throws NativeCallException {
        Objects.requireNonNull(destination, "destination");
        check("rdma_resolve_addr", lib().rdma_resolve_addr(handle("id", id),
                source == null ? null : SocketAddresses.encode(source), SocketAddresses.encode(destination),
                timeoutMs));
    }

    /** After ADDR_RESOLVED; the result arrives as ROUTE_RESOLVED or ROUTE_ERROR. */
    public static void resolveRoute(long id, int timeoutMs) throws NativeCallException {
        check("rdma_resolve_route", lib().rdma_resolve_route(handle("id", id), timeoutMs));
    }

    /**
     * Creates a reliable-connected QP on the id ({@code rdma_create_qp}; read it back with {@link #qp(long)}),
     * using the given CQs (which may be the same) and asking for {@code requested}. Returns the capabilities the
     * device granted. With {@code sqSigAll} every send WR produces a completion; otherwise only
     * {@code IBV_SEND_SIGNALED} ones (and errors).
     */
    public static QpCapabilities createQp(long id, long pd, long sendCq, long recvCq, QpCapabilities requested,
                                          boolean sqSigAll) throws NativeCallException {
        return createQp(id, pd, sendCq, recvCq, 0, requested, sqSigAll);
    }

    /**
     * {@link #createQp(long, long, long, long, QpCapabilities, boolean)} with {@code qp_init_attr.srq}
     * ({@code ibv_srq*}, 0: none; then {@code maxRecvWr} and {@code maxRecvSge} are 0).
     */
    public static QpCapabilities createQp(long id, long pd, long sendCq, long recvCq, long srq,
                                          QpCapabilities requested, boolean sqSigAll) throws NativeCallException {
        checkCapabilities(requested);
        ByteBuffer attr = ByteBuffer.allocate(IbvQpInitAttr.SIZE).order(ByteOrder.nativeOrder());
        attr.putLong(IbvQpInitAttr.SEND_CQ, handle("sendCq", sendCq));
        attr.putLong(IbvQpInitAttr.RECV_CQ, handle("recvCq", recvCq));
        attr.putLong(IbvQpInitAttr.SRQ, srq);
        int cap = IbvQpInitAttr.CAP;
        attr.putInt(cap + IbvQpCap.MAX_SEND_WR, requested.maxSendWr);
        attr.putInt(cap + IbvQpCap.MAX_RECV_WR, requested.maxRecvWr);
        attr.putInt(cap + IbvQpCap.MAX_SEND_SGE, requested.maxSendSge);
        attr.putInt(cap + IbvQpCap.MAX_RECV_SGE, requested.maxRecvSge);
        attr.putInt(cap + IbvQpCap.MAX_INLINE_DATA, requested.maxInlineData);
        attr.putInt(IbvQpInitAttr.QP_TYPE, IbvConstants.IBV_QPT_RC);
        attr.putInt(IbvQpInitAttr.SQ_SIG_ALL, sqSigAll ? 1 : 0);
        byte[] bytes = attr.array();
        check("rdma_create_qp", lib().rdma_create_qp(handle("id", id), handle("pd", pd), bytes));
        return new QpCapabilities(attr.getInt(cap + IbvQpCap.MAX_SEND_WR), attr.getInt(cap + IbvQpCap.MAX_RECV_WR),
                attr.getInt(cap + IbvQpCap.MAX_SEND_SGE), attr.getInt(cap + IbvQpCap.MAX_RECV_SGE),
                attr.getInt(cap + IbvQpCap.MAX_INLINE_DATA));
    }

    private static void checkCapabilities(QpCapabilities c) {
        // A queue pair on a shared receive queue has no receive queue of its own: 0 receives (and SGEs).
        if (c.maxSendWr <= 0 || c.maxSendSge <= 0 || c.maxInlineData < 0 || c.maxRecvWr < 0 || c.maxRecvSge < 0
                || c.maxRecvWr > 0 && c.maxRecvSge == 0) {
            throw new IllegalArgumentException("invalid capabilities: " + c);
        }
    }

    /** Destroys the id's QP (flushing outstanding work requests is the caller's business: drain first). */
    public static void destroyQp(long id) {
        lib().rdma_destroy_qp(handle("id", id));
    }

    /** Active side, after ROUTE_RESOLVED and {@link #createQp}: the result is ESTABLISHED, REJECTED... */
    public static void connect(long id, ConnectionParameters parameters) throws NativeCallException {
        if (parameters.privateData.length > MAX_CONNECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("connect private data: " + parameters.privateData.length
                    + " bytes (max " + MAX_CONNECT_PRIVATE_DATA + ")");
        }
        withConnParam("rdma_connect", id, parameters, true);
    }

    /** Passive side, on the id of a CONNECT_REQUEST after {@link #createQp}: the result is ESTABLISHED. */
    public static void accept(long id, ConnectionParameters parameters) throws NativeCallException {
        if (parameters.privateData.length > MAX_ACCEPT_PRIVATE_DATA) {
            throw new IllegalArgumentException("accept private data: " + parameters.privateData.length
                    + " bytes (max " + MAX_ACCEPT_PRIVATE_DATA + ")");
        }
        withConnParam("rdma_accept", id, parameters, false);
    }

    private static void withConnParam(String call, long id, ConnectionParameters p, boolean connect)
            throws NativeCallException {
        checkByte("responderResources", p.responderResources);
        checkByte("initiatorDepth", p.initiatorDepth);
        if (p.retryCount < 0 || p.retryCount > 7 || p.rnrRetryCount < 0 || p.rnrRetryCount > 7) {
            throw new IllegalArgumentException("retry counts are 3-bit: " + p.retryCount + ", " + p.rnrRetryCount);
        }
        handle("id", id);
        byte[] data = p.privateData;
        // Scratch block: librdmacm copies both the struct and the private data during the call.
        try (NativeMemory scratch = NativeMemory.allocate(RdmaConnParam.SIZE + Math.max(1, data.length))) {
            long param = scratch.address();
            long dataAddress = param + RdmaConnParam.SIZE;
            if (data.length > 0) {
                scratch.put(RdmaConnParam.SIZE, data, 0, data.length);
            }
            IO.putAddress(param + RdmaConnParam.PRIVATE_DATA, data.length > 0 ? dataAddress : 0);
            IO.putByte(param + RdmaConnParam.PRIVATE_DATA_LEN, (byte) data.length);
            IO.putByte(param + RdmaConnParam.RESPONDER_RESOURCES, (byte) p.responderResources);
            IO.putByte(param + RdmaConnParam.INITIATOR_DEPTH, (byte) p.initiatorDepth);
            IO.putByte(param + RdmaConnParam.RETRY_COUNT, (byte) p.retryCount);
            IO.putByte(param + RdmaConnParam.RNR_RETRY_COUNT, (byte) p.rnrRetryCount);
            int rc = connect ? lib().rdma_connect(id, param) : lib().rdma_accept(id, param);
            check(call, rc);
        }
    }

    /** Passive side: refuses a CONNECT_REQUEST; the peer gets REJECTED with {@code privateData}. */
    public static void reject(long id, byte[] privateData) throws NativeCallException {
        int len = privateData == null ? 0 : privateData.length;
        if (len > MAX_REJECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("reject private data: " + len + " bytes (max "
                    + MAX_REJECT_PRIVATE_DATA + ")");
        }
        check("rdma_reject", lib().rdma_reject(handle("id", id), len == 0 ? null : privateData, (byte) len));
    }

    /**
     * Starts disconnecting (moves the QP to error, flushing its work requests). The side that calls it first
     * sends a DREQ; the peer gets DISCONNECTED and must call {@code disconnect} too (that sends the DREP), after
     * which the first side gets DISCONNECTED; otherwise the first side waits for the DREQ to time out.
     */
    public static void disconnect(long id) throws NativeCallException {
        check("rdma_disconnect", lib().rdma_disconnect(handle("id", id)));
    }

    // ---------------------------------------------------------------- id fields

    /** The device context ({@code ibv_context*}) the id is bound to, 0 before address resolution / bind. */
    public static long verbs(long id) {
        return IO.getAddress(handle("id", id) + RdmaCmId.VERBS);
    }

    /** The id's QP ({@code ibv_qp*}), 0 before {@link #createQp}. */
    public static long qp(long id) {
        return IO.getAddress(handle("id", id) + RdmaCmId.QP);
    }

    public static long pd(long id) {
        return IO.getAddress(handle("id", id) + RdmaCmId.PD);
    }

    public static long channel(long id) {
        return IO.getAddress(handle("id", id) + RdmaCmId.CHANNEL);
    }

    /** The {@code context} given to {@link #createId} (for ids from CONNECT_REQUEST: the listener's). */
    public static long context(long id) {
        return IO.getAddress(handle("id", id) + RdmaCmId.CONTEXT);
    }

    public static int portNum(long id) {
        return IO.getByte(handle("id", id) + RdmaCmId.PORT_NUM) & 0xFF;
    }

    /** Local address ({@code route.addr.src_addr}), null if none yet. */
    public static InetSocketAddress localAddress(long id) {
        return SocketAddresses.decode(handle("id", id) + RdmaCmId.ROUTE_ADDR_SRC_ADDR);
    }

    /** Peer address ({@code route.addr.dst_addr}), null if none yet. */
    public static InetSocketAddress remoteAddress(long id) {
        return SocketAddresses.decode(handle("id", id) + RdmaCmId.ROUTE_ADDR_DST_ADDR);
    }
}
