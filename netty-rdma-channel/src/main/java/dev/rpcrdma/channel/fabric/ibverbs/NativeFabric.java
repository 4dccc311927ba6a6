package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.verbs.DeviceAttributes;
import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.Posix;
import dev.rpcrdma.channel.verbs.RdmaCm;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fabric over real libibverbs/librdmacm (a {@link java.util.ServiceLoader} service named "native"); usable when
 * {@link NativeProbe} finds the libraries and a device. Thread-safe: its id and device maps are concurrent, the
 * objects it creates are each driven by one event loop.
 */
public final class NativeFabric implements Fabric {
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
            Posix.setNonBlocking(RdmaCm.eventChannelFd(channel));
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
            DeviceAttributes attributes = Verbs.queryDevice(context);
            d = devices.computeIfAbsent(context, c -> new NativeDevice(c, attributes));
        }
        return d;
    }

    @Override
    public String toString() {
        return "NativeFabric";
    }
}
