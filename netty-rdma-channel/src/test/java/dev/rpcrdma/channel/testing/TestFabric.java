package dev.rpcrdma.channel.testing;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;
import dev.rpcrdma.channel.transport.RdmaResources;

import java.net.InetAddress;
import java.util.Map;

/**
 * The fabrics every transport suite runs on, as Netty's {@code EpollSocketTestPermutation} gives its socket tests
 * their transports: a suite takes one in its constructor and each of its subclasses is one line. The software ones
 * run in {@code mvn verify}; {@link #NATIVE} in the VM stage (its subclasses are tagged {@code rdma-device}) and
 * skips loudly elsewhere. Shared with other modules through this module's test-jar.
 */
public enum TestFabric {
    /** The in-process software fabric. */
    SOFTWARE,
    /**
     * The software fabric refusing Local Invalidate of a bound window ({@link SoftwareFabric#likeRxe}): windows are
     * closed instead, and any Local Invalidate that reached the device would fail.
     */
    SOFTWARE_LIKE_RXE,
    /**
     * The software fabric modelling Soft-iWARP ({@link SoftwareFabric#likeSiw}): no memory windows, no remote
     * invalidation, 80 bytes of inline data, 6 SGEs per work request and 1 per Read sink, Read sinks needing remote
     * write, iWARP's error semantics.
     */
    SOFTWARE_LIKE_SIW,
    /** libibverbs and librdmacm on the device {@link NativeTestDevice} names. */
    NATIVE;

    public boolean isNative() {
        return this == NATIVE;
    }

    public Fabric fabric() {
        return isNative() ? Fabrics.findNative() : SoftwareFabric.instance();
    }

    public InetAddress address() {
        return isNative() ? NativeTestDevice.address() : InetAddress.getLoopbackAddress();
    }

    /**
     * Before each test of {@code suite}: skips it where the native fabric is unusable; puts the software fabric into
     * this model.
     */
    public void setUp(String suite) {
        switch (this) {
            case NATIVE -> NativeTestDevice.assumeNativeFabric(suite + " ran only on the software fabric");
            case SOFTWARE_LIKE_RXE -> SoftwareFabric.instance().likeRxe(true);
            case SOFTWARE_LIKE_SIW -> SoftwareFabric.instance().likeSiw(true);
            case SOFTWARE -> { }
        }
    }

    /** After each test: the software fabric back to its default model. */
    public void tearDown() {
        switch (this) {
            case SOFTWARE_LIKE_RXE -> SoftwareFabric.instance().likeRxe(false);
            case SOFTWARE_LIKE_SIW -> SoftwareFabric.instance().likeSiw(false);
            default -> { }
        }
    }

    /** Live objects per kind: the software fabric's counts, or {@code rdma resource show} on a device. */
    public Map<String, Integer> resources() {
        return isNative() ? RdmaResources.show() : SoftwareFabric.instance().resourceCounts();
    }

    /** Makes a queue pair in error take {@code millis} to flush, where the fabric can; false where it cannot. */
    public boolean slowFlushes(long millis) {
        if (isNative()) {
            return false;
        }
        SoftwareFabric.instance().flushDelayMillis(millis);
        return true;
    }

    /** Makes {@code ibv_destroy_qp} sleep {@code millis}, where the fabric can; false where it cannot. */
    public boolean slowQueuePairDestroys(long millis) {
        if (isNative()) {
            return false;
        }
        SoftwareFabric.instance().destroyQpDelayMillis(millis);
        return true;
    }

    /** Fails the next {@code count} posts of sends, where the fabric can; false where it cannot. */
    public boolean failPostSends(int count, boolean sendsOnly) {
        if (isNative()) {
            return false;
        }
        SoftwareFabric.instance().failPostSends(count, sendsOnly);
        return true;
    }
}
