package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.QueuePair;
import dev.rpcrdma.channel.fabric.WrOpcode;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-process software fabric (see the package documentation). {@link #instance()} is the JVM-wide fabric that
 * transports use; {@link #newIsolated()} makes a separate one (own device, keys and listener namespace) for tests.
 * Listeners are keyed by "ip:port"; a wildcard listener serves every address of its port.
 */
public final class SoftwareFabric implements Fabric {
    /** The RNR NAK timer between retries of a Send that found no posted receive. */
    public static final int RNR_TIMER_MILLIS = 1;
    /**
     * Like rxe, how long {@code ibv_destroy_qp} waits at most for the bound type-2 windows that hold the queue pair
     * (Linux 6.1 {@code __rxe_cleanup}: 50 s, then a kernel warning and the destroy goes on).
     */
    public static final long RXE_DESTROY_WAIT_MILLIS = 50_000;
    /**
     * The local ACK timeout of every queue pair (the {@code timeout} attribute 14: 4.096 µs × 2^14 ≈ 67 ms, a
     * common value on an InfiniBand subnet; rdma_cm on RoCE sets 19, about 2.1 s): how long a requester waits for the
     * acknowledgement of a request before it sends it again ({@link #severConnection}).
     */
    public static final long ACK_TIMEOUT_MILLIS = 67;

    private static volatile SoftwareFabric instance;

    final Object lock = new Object();
    final SoftDevice device = new SoftDevice(this);
    /** The "NIC": one thread executes all work requests and delivers CM events (while there is work or a loop). */
    final SoftEngine engine = new SoftEngine("rdma-software-fabric");
    /**
     * How long a queue pair that went to error takes to flush its work requests (0: at once). A real device flushes
     * asynchronously; tests set this to hold a closing channel in its drain.
     */
    volatile long flushDelayMillis;
    /** How long {@code ibv_destroy_qp} sleeps before destroying (0: it returns at once). */
    volatile long destroyQpDelayMillis;
    volatile boolean likeRxe;
    volatile boolean likeSiw;
    /** Fault injection: how many of the next {@code ibv_post_send} calls fail (see {@link #failPostSends(int)}). */
    private final AtomicInteger postSendFailures = new AtomicInteger();
    private volatile boolean failSendsOnly;
    /** Key owners by 24-bit index; primitive keys: a lookup per RDMA operation boxes nothing (index > 127). */
    private final IntObjectMap<Object> keys = new IntObjectHashMap<>();
    private final Map<String, SoftCmId> listeners = new HashMap<>();
    /** Ids bound with {@code rdma_bind_addr}, per port (the kernel's rdma_cm bind list). */
    private final Map<Integer, List<SoftCmId>> boundPorts = new HashMap<>();
    /** Live objects per kind, as {@code rdma resource show} counts them on a real device. */
    private final Map<String, Integer> resources = new TreeMap<>();
    private int nextKeyIndex = 1;
    private int nextPort = 49152;
    private int nextQpNum = 17;

    private SoftwareFabric() {
    }

    /** The JVM-wide software fabric. */
    public static SoftwareFabric instance() {
        SoftwareFabric f = instance;
        if (f == null) {
            synchronized (SoftwareFabric.class) {
                f = instance;
                if (f == null) {
                    instance = f = new SoftwareFabric();
                }
            }
        }
        return f;
    }

    /**
     * Makes the device behave like Soft-RoCE where {@code IBV_WR_LOCAL_INV} is concerned (until set back): it reports
     * {@link dev.rpcrdma.channel.fabric.VerbsDevice#localInvalidateSupported()} false, and a {@code LOCAL_INV} of a
     * bound type-2 window (which oopses rxe's kernel) fails with {@code LOC_QP_OP_ERR} instead of invalidating, so
     * a test sees any attempt; and {@code ibv_destroy_qp} waits, as rxe's does, for the windows still bound through
     * the queue pair to be invalidated or deallocated (at most {@link #RXE_DESTROY_WAIT_MILLIS}). Default false:
     * {@code LOCAL_INV} works and a destroy does not wait, as on hardware.
     */
    public void likeRxe(boolean likeRxe) {
        this.likeRxe = likeRxe;
    }

    /**
     * Makes the device model Soft-iWARP (siw) and iWARP hardware where a user-space RPC-over-RDMA transport leans on
     * the device (until set back): no memory windows ({@code max_mw} 0: {@code ibv_alloc_mw} fails with
     * {@code EOPNOTSUPP}, {@code IBV_WR_BIND_MW} and {@code IBV_WR_LOCAL_INV} with {@code EINVAL} at post, as in
     * rdma-core's providers/siw), at most 80 bytes of inline data ({@code SIW_MAX_INLINE}: {@code rdma_create_qp}
     * fails above), 6 SGEs per work request and 1 per RDMA Read sink (further Read SGEs are silently ignored, as
     * siw_qp_tx.c does), an iWARP transport whose Read sinks need remote write access (iWARP hardware checks it,
     * RFC 5040 §4.4; siw does not, so this is stricter than siw), and a Send With Invalidate that invalidates
     * whatever key of the receiver's protection domain it names, memory regions included, without reporting it in
     * the receive completion (siw_qp_rx.c). And iWARP's error semantics: no RNR retry (a Send without a posted
     * receive is a fatal DDP error, RFC 5041 §7.2); a Send or RDMA Write whose responder fails it completes
     * successfully at the requester, after which the responder's TERMINATE (RFC 5040 §7.4) moves both queue pairs to
     * error and disconnects both sides; work posted to a queue pair in error is never completed (siw flushes only
     * at the state change); {@code rdma_connect} to a port without a listener fails with {@code ECONNREFUSED}
     * (siw_connect connects TCP synchronously); private data arrives unpadded (MPA, RFC 5044 §7.1). Default false.
     */
    public void likeSiw(boolean likeSiw) {
        this.likeSiw = likeSiw;
    }

    /** Sets how long a queue pair that went to error takes to flush its work requests (0, the default: at once). */
    public void flushDelayMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("millis: " + millis + " (expected >= 0)");
        }
        flushDelayMillis = millis;
    }

    /**
     * Makes {@code ibv_destroy_qp} sleep {@code millis} before it destroys (0, the default: it returns at once), as
     * Soft-RoCE's can while the peer still has traffic for the queue pair (Linux 6.1 {@code __rxe_cleanup} waits up
     * to 50 s for its last reference); a caller on an event loop would stall the loop that long.
     */
    public void destroyQpDelayMillis(long millis) {
        if (millis < 0) {
            throw new IllegalArgumentException("millis: " + millis + " (expected >= 0)");
        }
        destroyQpDelayMillis = millis;
    }

    /**
     * Fault injection for tests: the next {@code count} {@code ibv_post_send} calls on any queue pair of this fabric
     * fail with {@code EIO}, as a device that lost its port would make them fail (0 ends it).
     */
    public void failPostSends(int count) {
        failPostSends(count, false);
    }

    /**
     * The same, counting only Sends ({@code IBV_WR_SEND}, {@code IBV_WR_SEND_WITH_INV}) when {@code sendsOnly}:
     * RDMA Writes posted before them go through, e.g. a responder dying between its Writes and its reply.
     */
    public void failPostSends(int count, boolean sendsOnly) {
        if (count < 0) {
            throw new IllegalArgumentException("count: " + count + " (expected >= 0)");
        }
        failSendsOnly = sendsOnly;
        postSendFailures.set(count);
    }

    /**
     * Models the peer of {@code qp} vanishing without a word (its host lost power, a cable or switch failed): from now
     * on nothing crosses that connection in either direction. No acknowledgement comes back, so a request of either
     * side that needs the peer (Send, RDMA Write or Read) is sent again after every local ACK timeout
     * ({@link #ACK_TIMEOUT_MILLIS}) until the queue pair's {@code retry_cnt} is spent, then completes with
     * {@code IBV_WC_RETRY_EXC_ERR} and the queue pair goes to error (IBTA transport retries); a queue pair that
     * sends nothing notices nothing. RDMA-CM messages are lost too: a side that disconnects gets its own
     * {@code DISCONNECTED} (as the kernel's CM reports one once its DREQ timed out), its peer none. Binds and local
     * invalidations, which never leave the device, still execute.
     */
    public void severConnection(QueuePair qp) {
        SoftQueuePair q = (SoftQueuePair) qp;
        synchronized (lock) {
            q.sever();
            if (q.peer != null) {
                q.peer.sever();
            }
        }
    }

    /** Consumes one injected post failure for a work request of {@code opcode}, if any. */
    boolean takePostSendFailure(int opcode) {
        if (failSendsOnly && opcode != WrOpcode.SEND && opcode != WrOpcode.SEND_WITH_INV) {
            return false;
        }
        for (int n; (n = postSendFailures.get()) > 0; ) {
            if (postSendFailures.compareAndSet(n, n - 1)) {
                return true;
            }
        }
        return false;
    }

    /** A new fabric sharing nothing with {@link #instance()}; its engine thread is a daemon that runs while there is work or a loop. */
    public static SoftwareFabric newIsolated() {
        return new SoftwareFabric();
    }

    @Override
    public String name() {
        return "software";
    }

    /** Keeps the engine thread alive while idle until {@link #loopStopped()}. */
    @Override
    public void loopStarted() {
        engine.retain();
    }

    /** After the last loop stopped, the engine thread ends once it has nothing left to do. */
    @Override
    public void loopStopped() {
        engine.release();
    }

    /** Whether this fabric's engine thread runs (tests). */
    boolean engineRunning() {
        return engine.isRunning();
    }

    @Override
    public CmEventChannel createEventChannel() {
        return new SoftCmEventChannel(this);
    }

    @Override
    public String toString() {
        return "SoftwareFabric";
    }

    /**
     * Live objects of this fabric per kind — {@code pd}, {@code cq}, {@code qp}, {@code cm_id}, {@code mr},
     * {@code mw}, {@code comp_channel}, {@code event_channel} — like the counts of {@code rdma resource show}: a
     * transport that releases everything it created brings them back to where they were. A snapshot.
     */
    public Map<String, Integer> resourceCounts() {
        synchronized (lock) {
            return new TreeMap<>(resources);
        }
    }

    /** One more ({@code delta} 1) or one fewer (-1) live object of {@code kind}. */
    void count(String kind, int delta) {
        synchronized (lock) {
            resources.merge(kind, delta, Integer::sum);
        }
    }

    // ---- internal, caller holds the lock ----

    /** Allocates a key: 24-bit index and an 8-bit key byte that starts at 0, as {@code ibv_inc_rkey} counts. */
    int allocateKey(Object owner) {
        int index = nextKeyIndex++ & 0xffffff;
        keys.put(index, owner);
        return index << 8;
    }

    void releaseKey(int key) {
        keys.remove(key >>> 8);
    }

    Object keyObject(int key) {
        return keys.get(key >>> 8);
    }

    int ephemeralPort() {
        int p;
        do {
            p = nextPort++;
            if (nextPort > 65535) {
                nextPort = 49152;
            }
        } while (boundPorts.containsKey(p));
        return p;
    }

    /**
     * {@code rdma_bind_addr}'s port check, as the kernel's rdma_cm does it without {@code SO_REUSEADDR}: a port
     * already bound by another id fails the bind with EADDRNOTAVAIL when either address is the wildcard, with
     * EADDRINUSE when both are the same address; different specific addresses may share a port.
     */
    void bindPort(InetSocketAddress address, SoftCmId id) throws FabricException {
        List<SoftCmId> owners = boundPorts.computeIfAbsent(address.getPort(), p -> new ArrayList<>());
        for (SoftCmId other : owners) {
            InetAddress a = other.localAddress().getAddress();
            if (address.getAddress().isAnyLocalAddress() || a.isAnyLocalAddress()) {
                throw new FabricException("rdma_bind_addr: port " + address.getPort() + " bound by " + a,
                        FabricException.EADDRNOTAVAIL);
            }
            if (a.equals(address.getAddress())) {
                throw new FabricException("rdma_bind_addr: " + address + " in use", FabricException.EADDRINUSE);
            }
        }
        owners.add(id);
    }

    void unbindPort(int port, SoftCmId id) {
        List<SoftCmId> owners = boundPorts.get(port);
        if (owners != null && owners.remove(id) && owners.isEmpty()) {
            boundPorts.remove(port);
        }
    }

    int nextQpNum() {
        return nextQpNum++ & 0xffffff;
    }

    String addListener(InetSocketAddress address, SoftCmId id) throws FabricException {
        String key = key(address.getAddress(), address.getPort());
        String wildcard = "*:" + address.getPort();
        boolean conflict = listeners.containsKey(key) || listeners.containsKey(wildcard);
        if (!conflict && address.getAddress().isAnyLocalAddress()) {
            String suffix = ":" + address.getPort();
            conflict = listeners.keySet().stream().anyMatch(k -> k.endsWith(suffix));
        }
        if (conflict) {
            throw new FabricException("rdma_listen: " + address + " in use", FabricException.EADDRINUSE);
        }
        listeners.put(key, id);
        return key;
    }

    void removeListener(String key, SoftCmId id) {
        listeners.remove(key, id);
    }

    SoftCmId findListener(InetSocketAddress destination) {
        SoftCmId id = listeners.get(key(destination.getAddress(), destination.getPort()));
        return id != null ? id : listeners.get("*:" + destination.getPort());
    }

    private static String key(InetAddress address, int port) {
        return (address.isAnyLocalAddress() ? "*" : address.getHostAddress()) + ':' + port;
    }
}
