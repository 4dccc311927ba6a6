package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.verbs.DeviceAttributes;
import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.RdmaCm;
import dev.rpcrdma.channel.verbs.Verbs;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fabric over real libibverbs/librdmacm (a {@link java.util.ServiceLoader} service named "native"); usable when
 * {@link NativeProbe} finds the libraries and a device. Thread-safe: its id and device maps are concurrent, the
 * objects it creates are each driven by one event loop.
 */
public final class NativeFabric implements Fabric {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(NativeFabric.class);
    /**
     * The siw contexts that hold their plug (JVM-wide: every {@code NativeFabric} instance reaches the one context
     * librdmacm opened per device, which it never closes).
     */
    private static final Set<Long> PLUGGED_CONTEXTS = ConcurrentHashMap.newKeySet();

    /** Entries of the completion queue {@link #plugSiwInvalidKey} creates: 32 B each, 2^15 of them span 257 pages. */
    static final int SIW_KEY_PLUG_CQE = 1 << 15;

    /** rdma_cm_id address → wrapper, so that events (which carry id pointers) find their Java objects. */
    final Map<Long, NativeCmId> ids = new ConcurrentHashMap<>();
    /** ibv_context address → device. */
    private final Map<Long, NativeDevice> devices = new ConcurrentHashMap<>();

    public NativeFabric() {
    }

    @Override
    public String name() {
        return "native";
    }

    @Override
    public Throwable unavailabilityCause() {
        return NativeProbe.unavailabilityCause();
    }

    @Override
    public int errno(Throwable failure) {
        return failure instanceof NativeCallException ? ((NativeCallException) failure).errno()
                : Fabric.super.errno(failure);
    }

    @Override
    public String failedCall(Throwable failure) {
        return failure instanceof NativeCallException ? ((NativeCallException) failure).call() : null;
    }

    @Override
    public CmEventChannel createEventChannel() throws IOException {
        NativeProbe.ensureAvailability();
        long channel = RdmaCm.createEventChannel();
        try {
            Verbs.setNonBlocking(RdmaCm.eventChannelFd(channel));
        } catch (NativeCallException e) {
            RdmaCm.destroyEventChannel(channel);
            throw e;
        }
        return new NativeCmEventChannel(this, channel);
    }

    NativeDevice device(long context) throws NativeCallException {
        if (context == 0) {
            return null;
        }
        NativeDevice d = devices.get(context);
        if (d == null) {
            synchronized (devices) {
                d = devices.get(context);
                if (d == null) {
                    DeviceAttributes attributes = Verbs.queryDevice(context);
                    if (attributes.isSoftIwarp() && PLUGGED_CONTEXTS.add(context)) {
                        plugSiwInvalidKey(context);
                    }
                    d = new NativeDevice(context, attributes);
                    devices.put(context, d);
                }
            }
        }
        return d;
    }

    /**
     * Works around a key collision between Linux's siw and rdma-core's libsiw (Linux 6.1 to at least 6.12, rdma-core
     * 44 to at least 56): every completion queue, shared receive queue and queue pair of a process is mapped into user
     * space under the offset its kernel mmap entry got ({@code rdma_user_mmap_entry_insert}: the lowest free page
     * range of the device context, shifted by the page size), and libsiw refuses an object whose offset equals
     * {@code SIW_INVAL_UOBJ_KEY} ({@code 0x90000}, siw-abi.h: page 144), destroying it again and returning NULL
     * without setting errno (so {@code rdma_create_qp} "failed" with whatever errno an unrelated call left, e.g.
     * {@code EAGAIN} from a non-blocking read). Once a process holds about 144 pages of such mappings (40-odd
     * connections), the next object lands on page 144, fails and frees it, and so does every later one: no further
     * connection could be set up. Found with {@code strace} (no system call failed) and siw's dynamic debug
     * ({@code siw_create_qp} succeeded, {@code siw_destroy_qp} followed at once).
     *
     * <p>The fix: when the process first meets a siw device (its context has no mappings of ours yet), a completion
     * queue of {@value #SIW_KEY_PLUG_CQE} entries (1 MiB of kernel memory, never used) takes pages 0 to 256 for the
     * lifetime of the context, so no later mapping can start at page 144. The context lives as long as the process
     * (librdmacm never closes it), and so does this queue. A failure only costs the workaround (logged).
     */
    private static void plugSiwInvalidKey(long context) {
        try {
            long cq = Verbs.createCq(context, SIW_KEY_PLUG_CQE, 0, 0, 0);
            logger.debug("{}: completion queue {} of {} entries holds siw's invalid mmap key (page 144)",
                    Verbs.deviceName(context), Long.toHexString(cq), SIW_KEY_PLUG_CQE);
        } catch (NativeCallException e) {
            logger.warn("{}: could not reserve siw's invalid mmap key; after about 144 pages of queue mappings this "
                    + "process may fail to create queues", Verbs.deviceName(context), e);
        }
    }

    @Override
    public String toString() {
        return "NativeFabric";
    }
}
