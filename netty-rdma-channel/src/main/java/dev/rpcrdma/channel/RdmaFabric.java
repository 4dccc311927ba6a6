package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.Fabrics;
import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The fabric an {@link RdmaIoHandler} runs its channels on, for {@link RdmaIoHandlerConfig#fabric(RdmaFabric)}:
 * {@link #NATIVE}, libibverbs and librdmacm on an RDMA device (a NIC or a kernel software provider), or {@link #SOFTWARE}, an
 * in-process model of one device that reaches only peers in the same JVM. The software fabric is used only when
 * chosen: the default ({@link #select()}, system property {@value #PROPERTY} unset) is {@link #NATIVE}, and where
 * it is unavailable the choice fails with {@link Rdma#unavailabilityMessage()} instead of falling back. The
 * constants are immutable and safe to use from any thread; the native fabric behind {@link #NATIVE} is loaded once
 * per JVM.
 */
public enum RdmaFabric {
    /** The in-process software fabric: one JVM-wide device; connections reach only listeners in this JVM. */
    SOFTWARE,
    /** libibverbs and librdmacm on an RDMA device; see {@link Rdma} for why it may be unavailable. */
    NATIVE;

    /**
     * The system property that selects the default fabric: {@code native} (the default), {@code software} or
     * {@code auto}.
     */
    public static final String PROPERTY = "dev.rpcrdma.fabric";

    /** Whether the fabric can be used here: always for {@link #SOFTWARE}; NATIVE when {@link Rdma#isAvailable()}. */
    public boolean isAvailable() {
        if (this == SOFTWARE) {
            return true;
        }
        Fabric f = NativeHolder.FABRIC;
        return f != null && f.isAvailable();
    }

    /**
     * The fabric selected by {@value #PROPERTY}: {@link #NATIVE} when it is unset.
     *
     * @throws IllegalStateException when the native fabric is selected and not available here (the message is
     *         {@link Rdma#unavailabilityMessage()} plus how to choose the software fabric)
     */
    public static RdmaFabric select() {
        return select(System.getProperty(PROPERTY, "native"));
    }

    /**
     * The fabric for a selector value: {@code native}, {@code software} or {@code auto} (native when it is usable,
     * otherwise software with a warning in the log: an explicit choice to accept a fabric that only this JVM can
     * reach); case and surrounding blanks do not matter.
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
                if (NATIVE.isAvailable()) {
                    return NATIVE;
                }
                AutoFallbackLog.warnOnce();
                return SOFTWARE;
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
        return new IllegalStateException(nativeUnavailableMessage(), Rdma.unavailabilityCause());
    }

    /**
     * {@link Rdma#unavailabilityMessage()} and how to choose the software fabric instead: the message of every
     * refusal of the native fabric by the library.
     */
    static String nativeUnavailableMessage() {
        String why = Rdma.unavailabilityMessage();
        return (why != null ? why : "RDMA is not available: the native fabric is not usable")
                + " (or choose the in-process software fabric, which only this JVM can reach:"
                + " RdmaIoHandlerConfig.fabric(RdmaFabric.SOFTWARE) or -D" + PROPERTY + "=software)";
    }

    /** Logs, once per JVM, that {@code auto} chose the software fabric and why. */
    private static final class AutoFallbackLog {
        private static final AtomicBoolean LOGGED = new AtomicBoolean();

        static void warnOnce() {
            if (LOGGED.compareAndSet(false, true)) {
                InternalLoggerFactory.getInstance(RdmaFabric.class).warn(
                        "fabric auto ({}): using the in-process software fabric, which only this JVM can reach; {}",
                        PROPERTY, Rdma.unavailabilityMessage());
            }
        }
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
