package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.QpState;
import dev.rpcrdma.channel.unix.Libc;
import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.IbvLayouts.IbvCompChannel;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvContext;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvDeviceAttr;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvMr;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvMw;
import dev.rpcrdma.channel.verbs.IbvLayouts.IbvQp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The facade over libibverbs ({@code libibverbs.so.1}): every call either succeeds or throws a
 * {@link NativeCallException} naming the C function and the errno text. Objects are {@code long} addresses of
 * the C structs ({@code ibv_context*}, {@code ibv_pd*}, {@code ibv_mr*}...); 0 is never a valid handle and is
 * rejected before reaching C.
 *
 * <p>The data path ({@link #postSend}, {@link #postRecv}, {@link #pollCq}, {@link #reqNotifyCq}) is static
 * inline in verbs.h; it calls the provider through {@code ibv_context->ops} with jffi, saves no errno and
 * allocates nothing. Thread safety is that of libibverbs: posting to one QP or polling one CQ from two threads
 * at once needs external serialization (the transport keeps each QP/CQ on one event loop).
 *
 * <p>Blocking calls: only {@link #getCqEvent(long)} blocks (until a completion event arrives) unless its channel
 * fd was made non-blocking with {@link #setNonBlocking(int)}.
 */
public final class Verbs {
    /**
     * The bit rxe sets in {@code wc_flags} for a receive completed by Send With Invalidate: the kernel's
     * {@code IB_WC_WITH_INVALIDATE}, which rxe leaks to user space instead of {@code IBV_WC_WITH_INV}
     * ({@code 1 << 3}); in user-space terms it collides with {@code IBV_WC_IP_CSUM_OK}. See
     * {@link DeviceAttributes#wcWithInvalidateFlag()}.
     */
    public static final int SOFT_ROCE_WC_WITH_INV = 1 << 2;

    private Verbs() {
    }

    private static NativeLibraries.Loaded<LibIbverbs> loaded() {
        return NativeLibraries.Ibverbs.LIB;
    }

    private static LibIbverbs lib() {
        return loaded().get();
    }

    /** Throws {@link UnsatisfiedLinkError} (naming the Debian package) if libibverbs cannot be loaded. */
    public static void ensureLoaded() {
        Throwable cause = loaded().cause;
        if (cause != null) {
            throw (Error) new UnsatisfiedLinkError(cause.getMessage()).initCause(cause);
        }
    }

    /** Why libibverbs could not be loaded, or null. */
    public static Throwable loadFailure() {
        return loaded().cause;
    }

    private static NativeCallException error(String call) {
        return new NativeCallException(call, loaded().lastError());
    }

    private static long check(String call, long pointer) throws NativeCallException {
        if (pointer == 0) {
            throw error(call);
        }
        return pointer;
    }

    /** For calls that return 0 or an errno value (most destroy/dealloc verbs). */
    private static void checkErrnoResult(String call, int rc) throws NativeCallException {
        if (rc != 0) {
            // Most libibverbs calls return the errno value; some older paths return -1 and set errno.
            throw new NativeCallException(call, rc > 0 ? rc : loaded().lastError());
        }
    }

    static long handle(String what, long address) {
        if (address == 0) {
            throw new IllegalArgumentException(what + " is NULL");
        }
        return address;
    }

    // ---------------------------------------------------------------- devices

    /** Names of the RDMA devices libibverbs sees (e.g. {@code ["rxe0"]}); empty when there are none. */
    public static List<String> deviceNames() throws NativeCallException {
        LibIbverbs lib = lib();
        int[] num = new int[1];
        long list = lib.ibv_get_device_list(num);
        if (list == 0) {
            throw error("ibv_get_device_list");
        }
        try {
            List<String> names = new ArrayList<>(num[0]);
            for (int i = 0; i < num[0]; i++) {
                names.add(lib.ibv_get_device_name(IO.getAddress(list + (long) i * Long.BYTES)));
            }
            return names;
        } finally {
            lib.ibv_free_device_list(list);
        }
    }

    /** Opens device {@code name} and returns its {@code ibv_context*}; close with {@link #closeDevice(long)}. */
    public static long openDevice(String name) throws NativeCallException {
        LibIbverbs lib = lib();
        int[] num = new int[1];
        long list = lib.ibv_get_device_list(num);
        if (list == 0) {
            throw error("ibv_get_device_list");
        }
        try {
            for (int i = 0; i < num[0]; i++) {
                long device = IO.getAddress(list + (long) i * Long.BYTES);
                if (name.equals(lib.ibv_get_device_name(device))) {
                    return check("ibv_open_device", lib.ibv_open_device(device));
                }
            }
            throw new NativeCallException("ibv_open_device", 19 /* ENODEV */, "no RDMA device named " + name);
        } finally {
            lib.ibv_free_device_list(list);
        }
    }

    /** The name of the device behind {@code context} (e.g. of {@link RdmaCm#verbs(long)}), e.g. {@code "rxe0"}. */
    public static String deviceName(long context) {
        return lib().ibv_get_device_name(IO.getAddress(handle("context", context) + IbvContext.DEVICE));
    }

    public static void closeDevice(long context) throws NativeCallException {
        checkErrnoResult("ibv_close_device", lib().ibv_close_device(handle("context", context)));
    }

    public static DeviceAttributes queryDevice(long context) throws NativeCallException {
        byte[] attr = new byte[IbvDeviceAttr.SIZE];
        checkErrnoResult("ibv_query_device", lib().ibv_query_device(handle("context", context), attr));
        ByteBuffer b = ByteBuffer.wrap(attr).order(ByteOrder.nativeOrder());
        int fwLen = 0;
        while (fwLen < IbvDeviceAttr.FW_VER_LENGTH && attr[fwLen] != 0) {
            fwLen++;
        }
        return new DeviceAttributes(
                new String(attr, IbvDeviceAttr.FW_VER, fwLen, StandardCharsets.US_ASCII),
                Long.reverseBytes(b.getLong(IbvDeviceAttr.NODE_GUID)), // __be64
                b.getLong(IbvDeviceAttr.MAX_MR_SIZE),
                b.getInt(IbvDeviceAttr.VENDOR_ID),
                b.getInt(IbvDeviceAttr.VENDOR_PART_ID),
                b.getInt(IbvDeviceAttr.MAX_QP),
                b.getInt(IbvDeviceAttr.MAX_QP_WR),
                b.getInt(IbvDeviceAttr.DEVICE_CAP_FLAGS),
                b.getInt(IbvDeviceAttr.MAX_SGE),
                b.getInt(IbvDeviceAttr.MAX_SGE_RD),
                b.getInt(IbvDeviceAttr.MAX_CQE),
                b.getInt(IbvDeviceAttr.MAX_MR),
                b.getInt(IbvDeviceAttr.MAX_PD),
                b.getInt(IbvDeviceAttr.MAX_QP_RD_ATOM),
                b.getInt(IbvDeviceAttr.MAX_QP_INIT_RD_ATOM),
                b.getInt(IbvDeviceAttr.MAX_MW),
                attr[IbvDeviceAttr.PHYS_PORT_CNT] & 0xFF,
                IO.getInt(IO.getAddress(context + IbvContext.DEVICE) + IbvLayouts.IbvDevice.TRANSPORT_TYPE));
    }

    // ---------------------------------------------------------------- protection domains, memory

    public static long allocPd(long context) throws NativeCallException {
        return check("ibv_alloc_pd", lib().ibv_alloc_pd(handle("context", context)));
    }

    /** Fails with EBUSY while MRs, MWs or QPs still use the PD. */
    public static void deallocPd(long pd) throws NativeCallException {
        checkErrnoResult("ibv_dealloc_pd", lib().ibv_dealloc_pd(handle("pd", pd)));
    }

    /**
     * {@code ibv_create_srq} of at least {@code maxWr} receives of {@code maxSge} SGEs on {@code pd}; returns the
     * {@code ibv_srq*} and puts the granted {@code max_wr} in {@code granted[0]}.
     */
    public static long createSrq(long pd, int maxWr, int maxSge, int[] granted) throws NativeCallException {
        ByteBuffer attr = ByteBuffer.allocate(IbvLayouts.IbvSrqInitAttr.SIZE).order(ByteOrder.nativeOrder());
        attr.putInt(IbvLayouts.IbvSrqInitAttr.MAX_WR, maxWr);
        attr.putInt(IbvLayouts.IbvSrqInitAttr.MAX_SGE, maxSge);
        byte[] bytes = attr.array();
        long srq = check("ibv_create_srq", lib().ibv_create_srq(handle("pd", pd), bytes));
        granted[0] = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder()).getInt(IbvLayouts.IbvSrqInitAttr.MAX_WR);
        return srq;
    }

    /** {@code ibv_destroy_srq}: fails (EBUSY) while queue pairs use it; discards the posted receives. */
    public static void destroySrq(long srq) throws NativeCallException {
        checkErrnoResult("ibv_destroy_srq", lib().ibv_destroy_srq(handle("srq", srq)));
    }

    /** {@code ibv_post_srq_recv} (static inline; {@code ops.post_srq_recv}) of every work request in {@code wrs}. */
    public static void postSrqRecv(long srq, RecvWorkRequests wrs) throws NativeCallException {
        post("ibv_post_srq_recv", srq, IbvContext.OPS_POST_SRQ_RECV, wrs);
    }

    /**
     * Registers {@code [addr, addr + length)} and returns the {@code ibv_mr*}. The memory must stay allocated until
     * {@link #deregMr(long)} returns (use {@link NativeMemory} or a pooled direct buffer the caller keeps, never
     * GC-managed native memory). {@code access} is an or of the SPI's {@code AccessFlags} ({@code IBV_ACCESS_*});
     * add {@code MW_BIND} to bind memory windows over it.
     */
    public static long regMr(long pd, long addr, long length, int access) throws NativeCallException {
        handle("addr", addr);
        return check("ibv_reg_mr", lib().ibv_reg_mr(handle("pd", pd), addr, length, access));
    }

    public static void deregMr(long mr) throws NativeCallException {
        checkErrnoResult("ibv_dereg_mr", lib().ibv_dereg_mr(handle("mr", mr)));
    }

    public static int mrLkey(long mr) {
        return IO.getInt(handle("mr", mr) + IbvMr.LKEY);
    }

    public static int mrRkey(long mr) {
        return IO.getInt(handle("mr", mr) + IbvMr.RKEY);
    }

    public static long mrAddr(long mr) {
        return IO.getAddress(handle("mr", mr) + IbvMr.ADDR);
    }

    public static long mrLength(long mr) {
        return IO.getLong(handle("mr", mr) + IbvMr.LENGTH);
    }

    /**
     * {@code ibv_alloc_mw} (static inline in verbs.h: calls {@code ops.alloc_mw}). Type 2 windows are bound by a
     * {@code IBV_WR_BIND_MW} work request ({@link SendWorkRequests#bindMw}) and can be invalidated by the peer
     * (Send With Invalidate).
     */
    public static long allocMw(long pd, int type) throws NativeCallException {
        long context = IO.getAddress(handle("pd", pd) + IbvLayouts.IbvPd.CONTEXT);
        long fn = IO.getAddress(context + IbvContext.OPS_ALLOC_MW);
        if (fn == 0) {
            throw new NativeCallException("ibv_alloc_mw", 95 /* EOPNOTSUPP */);
        }
        long mw = NativeCalls.invokePointer2(NativeCalls.PTR_PTR_INT_ERRNO, fn, pd, type);
        if (mw == 0) {
            throw new NativeCallException("ibv_alloc_mw", NativeCalls.lastError());
        }
        return mw;
    }

    /**
     * {@code ibv_dealloc_mw} (static inline: {@code ops.dealloc_mw}). This is also how a bound window is
     * invalidated locally: on Soft-RoCE, posting {@code IBV_WR_LOCAL_INV} for a bound type-2 window oopses the
     * kernel (NULL dereference in {@code rxe_invalidate_mw}, Linux 6.1/6.12), so deallocate and allocate a fresh
     * window instead.
     */
    public static void deallocMw(long mw) throws NativeCallException {
        long context = IO.getAddress(handle("mw", mw) + IbvMw.CONTEXT);
        long fn = IO.getAddress(context + IbvContext.OPS_DEALLOC_MW);
        if (fn == 0) {
            throw new NativeCallException("ibv_dealloc_mw", 95 /* EOPNOTSUPP */);
        }
        checkErrnoResult("ibv_dealloc_mw", NativeCalls.invokeInt1(NativeCalls.INT_PTR, fn, mw));
    }

    /**
     * The window's rkey as allocated ({@code ibv_mw->rkey}). For type-2 windows the provider (rxe) does NOT
     * update it when an {@code IBV_WR_BIND_MW} completes: the caller must remember the rkey it bound with and
     * derive the next one from that ({@link #incRkey(int)}).
     */
    public static int mwRkey(long mw) {
        return IO.getInt(handle("mw", mw) + IbvMw.RKEY);
    }

    /**
     * Sets {@code ibv_mw->rkey} to the rkey of the window's latest binding. rxe's provider passes that field to the
     * kernel as the window's identity when the next {@code IBV_WR_BIND_MW} is posted ({@code wr.mw.mw_rkey}), and
     * the kernel refuses the bind unless it equals the key the window now has ({@code rxe_bind_mw}: "mw->rkey !=
     * mw_rkey"); since no one else updates it for type-2 windows, a window bound a second time (after an
     * invalidation) needs this. What {@code ibv_bind_mw} does for type-1 windows.
     */
    public static void setMwRkey(long mw, int rkey) {
        IO.putInt(handle("mw", mw) + IbvMw.RKEY, rkey);
    }

    /** {@code ibv_inc_rkey} (static inline in verbs.h): the next rkey, with the low 8-bit key tag incremented. */
    public static int incRkey(int rkey) {
        final int mask = 0x000000ff;
        int newTag = (rkey + 1) & mask;
        return (rkey & ~mask) | newTag;
    }

    // ---------------------------------------------------------------- completion channels and queues

    public static long createCompChannel(long context) throws NativeCallException {
        return check("ibv_create_comp_channel", lib().ibv_create_comp_channel(handle("context", context)));
    }

    /** Fails with EBUSY while a CQ still uses the channel: destroy CQs first. */
    public static void destroyCompChannel(long channel) throws NativeCallException {
        checkErrnoResult("ibv_destroy_comp_channel", lib().ibv_destroy_comp_channel(handle("channel", channel)));
    }

    /** The channel's fd: readable when a completion event is pending (poll/epoll it, then {@link #getCqEvent}). */
    public static int compChannelFd(long channel) {
        return IO.getInt(handle("channel", channel) + IbvCompChannel.FD);
    }

    /**
     * Creates a CQ of at least {@code cqe} entries. {@code channel} may be 0 (no events; poll only);
     * {@code cqContext} is returned by {@link #getCqEvent}'s CQ as {@link #cqContext(long)}.
     */
    public static long createCq(long context, int cqe, long cqContext, long channel, int compVector)
            throws NativeCallException {
        return check("ibv_create_cq",
                lib().ibv_create_cq(handle("context", context), cqe, cqContext, channel, compVector));
    }

    /** All events got from the CQ must have been acked ({@link #ackCqEvents}) or this blocks. */
    public static void destroyCq(long cq) throws NativeCallException {
        checkErrnoResult("ibv_destroy_cq", lib().ibv_destroy_cq(handle("cq", cq)));
    }

    public static long cqContext(long cq) {
        return IO.getAddress(handle("cq", cq) + IbvLayouts.IbvCq.CQ_CONTEXT);
    }

    /**
     * {@code ibv_get_cq_event}: returns the CQ that has a completion event. BLOCKS until one arrives if the
     * channel fd is blocking; returns 0 if the fd is non-blocking and no event is pending. Every event returned
     * must be acked with {@link #ackCqEvents} (batching is fine), and the CQ re-armed with {@link #reqNotifyCq}.
     */
    public static long getCqEvent(long channel) throws NativeCallException {
        long[] cq = new long[1];
        long[] ctx = new long[1];
        if (lib().ibv_get_cq_event(handle("channel", channel), cq, ctx) != 0) {
            int errno = loaded().lastError();
            if (errno == Libc.EAGAIN) {
                return 0;
            }
            throw new NativeCallException("ibv_get_cq_event", errno);
        }
        return cq[0];
    }

    /**
     * {@link #getCqEvent(long)} without allocating: the two out-pointers go to {@code scratch}, 16 bytes of native
     * memory from {@link #allocateCqEventScratch()}, and the call goes through jffi directly, not through jnr-ffi's
     * marshalling of {@code long[]} out-parameters. For the completion-channel wake-up of the event loop.
     */
    public static long getCqEvent(long channel, long scratch) throws NativeCallException {
        long ch = handle("channel", channel);
        // Without errno first (jffi saves it into thread-local data it looks up per call); only a failure asks
        // again with errno saved: no event (EAGAIN) or a broken channel repeats, and an event that came in between
        // is simply taken.
        int rc = NativeCalls.invokeInt3(NativeCalls.INT_PTR_PTR_PTR, GetCqEvent.FUNCTION, ch, scratch,
                scratch + Long.BYTES);
        if (rc != 0) {
            rc = NativeCalls.invokeInt3(NativeCalls.INT_PTR_PTR_PTR_ERRNO, GetCqEvent.FUNCTION, ch, scratch,
                    scratch + Long.BYTES);
        }
        if (rc != 0) {
            int errno = NativeCalls.lastError();
            if (errno == Libc.EAGAIN) {
                return 0;
            }
            throw new NativeCallException("ibv_get_cq_event", errno);
        }
        return IO.getAddress(scratch);
    }

    /** Native room for {@link #getCqEvent(long, long)}'s out-pointers; {@link #freeCqEventScratch} frees it. */
    public static long allocateCqEventScratch() {
        ensureLoaded();
        long address = IO.allocateMemory(2 * Long.BYTES, true);
        if (address == 0) {
            throw new OutOfMemoryError("malloc(16) failed");
        }
        return address;
    }

    public static void freeCqEventScratch(long scratch) {
        if (scratch != 0) {
            IO.freeMemory(scratch);
        }
    }

    /** {@code ibv_get_cq_event}'s address, looked up once libibverbs is loaded. */
    private static final class GetCqEvent {
        static final long FUNCTION = NativeCalls.symbol(LibIbverbs.SONAME, "ibv_get_cq_event");

        private GetCqEvent() {
        }
    }

    public static void ackCqEvents(long cq, int events) {
        lib().ibv_ack_cq_events(handle("cq", cq), events);
    }

    /**
     * {@code ibv_req_notify_cq} (static inline; {@code ops.req_notify_cq}): arms the CQ so that the next
     * completion (or next solicited one) produces an event on its channel.
     */
    public static void reqNotifyCq(long cq, boolean solicitedOnly) throws NativeCallException {
        long fn = IO.getAddress(IO.getAddress(handle("cq", cq) + IbvLayouts.IbvCq.CONTEXT)
                + IbvContext.OPS_REQ_NOTIFY_CQ);
        int rc = NativeCalls.invokeInt2(NativeCalls.INT_PTR_INT, fn, cq, solicitedOnly ? 1 : 0);
        if (rc != 0) {
            throw new NativeCallException("ibv_req_notify_cq", Math.abs(rc));
        }
    }

    /**
     * {@code ibv_poll_cq} (static inline; {@code ops.poll_cq}) into {@code wcs}: returns the number of completions
     * (0..capacity) now readable in {@code wcs} by index.
     */
    public static int pollCq(long cq, WorkCompletions wcs) throws NativeCallException {
        return pollCq(cq, wcs.capacity(), wcs.address());
    }

    /** {@link #pollCq(long, WorkCompletions)} into {@code max} {@code struct ibv_wc} at {@code wcArray}. */
    public static int pollCq(long cq, int max, long wcArray) throws NativeCallException {
        long fn = IO.getAddress(IO.getAddress(handle("cq", cq) + IbvLayouts.IbvCq.CONTEXT) + IbvContext.OPS_POLL_CQ);
        int n = NativeCalls.invokeInt3(NativeCalls.INT_PTR_INT_PTR, fn, cq, max, wcArray);
        if (n < 0) {
            // Providers return -1 or a negative errno; errno is not saved on the data path.
            throw new NativeCallException("ibv_poll_cq", n == -1 ? 5 /* EIO */ : -n);
        }
        return n;
    }

    // ---------------------------------------------------------------- queue pairs

    /**
     * {@code ibv_post_send} (static inline; {@code ops.post_send}) of every work request in {@code wrs}. On
     * failure, the exception names the first rejected work request; those before it were posted.
     */
    public static void postSend(long qp, SendWorkRequests wrs) throws NativeCallException {
        post("ibv_post_send", qp, IbvContext.OPS_POST_SEND, wrs);
    }

    /** {@code ibv_post_recv} (static inline; {@code ops.post_recv}) of every work request in {@code wrs}. */
    public static void postRecv(long qp, RecvWorkRequests wrs) throws NativeCallException {
        post("ibv_post_recv", qp, IbvContext.OPS_POST_RECV, wrs);
    }

    /** Calls the provider's post function at {@code opsOffset} of {@code ibv_context->ops} on all of {@code wrs}. */
    private static void post(String call, long qp, int opsOffset, WorkRequestBlock wrs)
            throws NativeCallException {
        if (wrs.count() == 0) {
            return;
        }
        // struct ibv_qp and struct ibv_srq both start with their context.
        long fn = IO.getAddress(IO.getAddress(handle("qp", qp) + IbvQp.CONTEXT) + opsOffset);
        IO.putAddress(wrs.badWrSlot(), 0);
        int rc = NativeCalls.invokeInt3(NativeCalls.INT_PTR_PTR_PTR, fn, qp, wrs.address(), wrs.badWrSlot());
        long badWr = IO.getAddress(wrs.badWrSlot());
        if (rc != 0 || badWr != 0) {
            int bad = wrs.indexOf(badWr);
            // A set bad_wr with rc 0 is a refusal too: rdma-core's libsiw (44 to at least 56, siw_post_send) rejects
            // a work request after earlier ones of the chain were pushed (e.g. inline data beyond SIW_MAX_INLINE),
            // then overwrites its -EINVAL with the doorbell's result, 0, and returns success with bad_wr set. Taken
            // at its word, the rest of the chain would silently never run (and never complete).
            throw new NativeCallException(call, rc != 0 ? Math.abs(rc) : Libc.EINVAL,
                    "work request " + bad + " of " + wrs.count() + " rejected"
                    + (rc != 0 ? "" : " (the provider returned 0 but set bad_wr)"));
        }
    }

    /**
     * {@code ibv_modify_qp(IBV_QPS_ERR)}: moves the QP to the error state; every outstanding and later-posted work
     * request completes with {@code IBV_WC_WR_FLUSH_ERR} (drain before destroying the QP).
     */
    public static void modifyQpToError(long qp) throws NativeCallException {
        byte[] attr = new byte[IbvLayouts.IbvQpAttr.SIZE];
        ByteBuffer.wrap(attr).order(ByteOrder.nativeOrder())
                .putInt(IbvLayouts.IbvQpAttr.QP_STATE, QpState.ERR);
        checkErrnoResult("ibv_modify_qp", lib().ibv_modify_qp(handle("qp", qp), attr, IbvConstants.IBV_QP_STATE));
    }

    /** {@code ibv_query_qp(IBV_QP_STATE)}: the QP's current {@code IBV_QPS_*} state as the device sees it. */
    public static int queryQpState(long qp) throws NativeCallException {
        byte[] attr = new byte[IbvLayouts.IbvQpAttr.SIZE];
        byte[] initAttr = new byte[IbvLayouts.IbvQpInitAttr.SIZE];
        checkErrnoResult("ibv_query_qp",
                lib().ibv_query_qp(handle("qp", qp), attr, IbvConstants.IBV_QP_STATE, initAttr));
        return ByteBuffer.wrap(attr).order(ByteOrder.nativeOrder()).getInt(IbvLayouts.IbvQpAttr.QP_STATE);
    }

    public static int qpNum(long qp) {
        return IO.getInt(handle("qp", qp) + IbvQp.QP_NUM);
    }

    /** {@code ibv_wc_status_str}, e.g. {@code "remote access error"}. */
    public static String wcStatusString(int status) {
        return lib().ibv_wc_status_str(status);
    }

    /** Sets {@code O_NONBLOCK} on {@code fd} (a completion channel or event channel fd, before epoll). */
    public static void setNonBlocking(int fd) throws NativeCallException {
        int flags = Libc.fcntl(fd, Libc.F_GETFL, 0);
        if (flags < 0) {
            throw new NativeCallException("fcntl(F_GETFL)", Libc.errno());
        }
        if (Libc.fcntl(fd, Libc.F_SETFL, flags | Libc.O_NONBLOCK) < 0) {
            throw new NativeCallException("fcntl(F_SETFL)", Libc.errno());
        }
    }
}
