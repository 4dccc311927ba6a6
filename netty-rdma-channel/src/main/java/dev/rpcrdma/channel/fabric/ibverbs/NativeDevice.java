package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import dev.rpcrdma.channel.verbs.DeviceAttributes;
import dev.rpcrdma.channel.verbs.NativeCallException;
import dev.rpcrdma.channel.verbs.Verbs;

import java.io.IOException;

/** An {@code ibv_context} reached through an RDMA-CM id (owned by librdmacm, never closed here). */
final class NativeDevice implements VerbsDevice {
    final long context;
    final DeviceAttributes attributes;

    NativeDevice(long context, DeviceAttributes attributes) {
        this.context = context;
        this.attributes = attributes;
    }

    @Override
    public boolean localInvalidateSupported() {
        // rxe oopses on a local invalidate of a bound type-2 window (rxe_invalidate_mw, Linux 6.1 and 6.12), a
        // kernel bug no device attribute reports: docs/providers.md.
        return !attributes.isSoftRoce();
    }

    @Override
    public String name() {
        return Verbs.deviceName(context);
    }

    @Override
    public int maxSge() {
        return attributes.maxSge();
    }

    @Override
    public int maxSgeRd() {
        return Math.max(1, attributes.maxSgeRd());
    }

    @Override
    public boolean memoryWindowsSupported() {
        return attributes.supportsType2MemoryWindows();
    }

    @Override
    public boolean iwarp() {
        return attributes.isIwarp();
    }

    @Override
    public int maxQpWr() {
        return attributes.maxQpWr();
    }

    @Override
    public int maxCqe() {
        return attributes.maxCqe();
    }

    @Override
    public ProtectionDomain allocProtectionDomain() throws IOException {
        return new NativeProtectionDomain(Verbs.allocPd(context));
    }

    @Override
    public CompletionChannel createCompletionChannel() throws IOException {
        long channel = Verbs.createCompChannel(context);
        try {
            Verbs.setNonBlocking(Verbs.compChannelFd(channel));
            return new NativeCompletionChannel(channel);
        } catch (NativeCallException | RuntimeException | OutOfMemoryError e) {
            Verbs.destroyCompChannel(channel);
            throw e;
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) throws IOException {
        NativeCompletionChannel ch = (NativeCompletionChannel) channel;
        long cq = Verbs.createCq(context, cqe, 0, ch == null ? 0 : ch.channel, 0);
        NativeCompletionQueue q = new NativeCompletionQueue(cq, attributes.wcWithInvalidateFlag());
        if (ch != null) {
            ch.add(q);
        }
        return q;
    }
}
