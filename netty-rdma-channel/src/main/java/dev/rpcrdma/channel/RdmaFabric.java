package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.util.Locale;

/**
 * The fabric an {@link RdmaIoHandler} runs its channels on, for {@link RdmaIoHandlerConfig#fabric(RdmaFabric)}:
 * {@link #NATIVE}, libibverbs and librdmacm on an RDMA device (a real NIC or Soft-RoCE), or {@link #SOFTWARE}, an
 * in-process model of one device that reaches only peers in the same JVM. {@link #select(String)} turns a
 * {@code software|native|auto} choice (the system property {@value #PROPERTY}) into one of them. The constants are
 * immutable and safe to use from any thread; the native fabric behind {@link #NATIVE} is loaded once per JVM.
 */
public enum RdmaFabric {
    /** The in-process software fabric: one JVM-wide device; connections reach only listeners in this JVM. */
    SOFTWARE,
    /** libibverbs and librdmacm on an RDMA device; see {@link Rdma} for why it may be unavailable. */
    NATIVE;

    /** The system property that selects the default fabric: {@code software}, {@code native} or {@code auto}. */
    public static final String PROPERTY = "dev.rpcrdma.fabric";

    /** Whether the fabric can be used here: always for {@link #SOFTWARE}; NATIVE when {@link Rdma#isAvailable()}. */
    public boolean isAvailable() {
        if (this == SOFTWARE) {
            return true;
        }
        Fabric f = NativeHolder.FABRIC;
        return f != null && f.isAvailable();
    }

    /** The fabric selected by {@value #PROPERTY} (default {@code auto}). */
    public static RdmaFabric select() {
        return select(System.getProperty(PROPERTY, "auto"));
    }

    /**
     * The fabric for a selector value: {@code software}, {@code native} or {@code auto} (native when it is usable,
     * otherwise software); case and surrounding blanks do not matter.
     *
     * @throws IllegalArgumentException for an unknown value
     * @throws IllegalStateException when {@code native} is asked for and it is not available
     */
    public static RdmaFabric select(String selector) {
        switch (selector.trim().toLowerCase(Locale.ROOT)) {
            case "software":
                return SOFTWARE;
            case "native":
                if (!NATIVE.isAvailable()) {
                    throw nativeUnavailable();
                }
                return NATIVE;
            case "auto":
                return NATIVE.isAvailable() ? NATIVE : SOFTWARE;
            default:
                throw new IllegalArgumentException("unknown " + PROPERTY + " value: " + selector
                        + " (expected software, native or auto)");
        }
    }

    /**
     * The SPI implementation behind this constant.
     *
     * @throws IllegalStateException for {@link #NATIVE} when it is not available
     */
    Fabric spi() {
        if (this == SOFTWARE) {
            return SoftwareFabric.instance();
        }
        if (!isAvailable()) {
            throw nativeUnavailable();
        }
        return NativeHolder.FABRIC;
    }

    private static IllegalStateException nativeUnavailable() {
        return new IllegalStateException("no native RDMA fabric available (-D" + PROPERTY + "=native)");
    }

    /** The SPI implementation of {@link #select()}. */
    static Fabric selectSpi() {
        return select().spi();
    }

    /** The installed native fabric, usable or not; null when the class path has none. */
    static Fabric installedNative() {
        return NativeHolder.FABRIC;
    }

    /** Loads the native fabric on first use (a {@code ServiceLoader} service named {@code "native"}). */
    private static final class NativeHolder {
        static final Fabric FABRIC = Fabrics.find("native");
    }
}
