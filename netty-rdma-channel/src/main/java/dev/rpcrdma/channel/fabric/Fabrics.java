package dev.rpcrdma.channel.fabric;

import dev.rpcrdma.channel.fabric.software.SoftwareFabric;

import java.util.Locale;
import java.util.ServiceLoader;

/**
 * Chooses the fabric the transport uses. The system property {@value #PROPERTY} selects
 * {@code software} (the in-process {@link SoftwareFabric}), {@code native} (a {@link Fabric} named
 * {@code "native"} found through {@link ServiceLoader}; fails when there is none) or {@code auto} (native when one
 * is installed and usable, otherwise software). The default is {@code auto}.
 */
public final class Fabrics {

    /** The selecting system property. */
    public static final String PROPERTY = "dev.rpcrdma.fabric";

    private Fabrics() {
    }

    /** The fabric selected by {@value #PROPERTY}. */
    public static Fabric select() {
        return select(System.getProperty(PROPERTY, "auto"));
    }

    /**
     * The fabric for a selector value ({@code software}, {@code native} or {@code auto}).
     *
     * @throws IllegalArgumentException for an unknown value
     * @throws IllegalStateException when {@code native} is asked for and none is available
     */
    public static Fabric select(String selector) {
        switch (selector.trim().toLowerCase(Locale.ROOT)) {
            case "software":
                return SoftwareFabric.instance();
            case "native": {
                Fabric f = findNative();
                if (f == null) {
                    throw new IllegalStateException("no native RDMA fabric available (-D" + PROPERTY + "=native)");
                }
                return f;
            }
            case "auto": {
                Fabric f = findNative();
                return f != null ? f : SoftwareFabric.instance();
            }
            default:
                throw new IllegalArgumentException("unknown " + PROPERTY + " value: " + selector
                        + " (expected software, native or auto)");
        }
    }

    /**
     * The native fabric when one is installed and usable (libibverbs, librdmacm and an RDMA device), else
     * {@code null}.
     */
    public static Fabric findNative() {
        for (Fabric f : ServiceLoader.load(Fabric.class, Fabrics.class.getClassLoader())) {
            if ("native".equals(f.name()) && f.isAvailable()) {
                return f;
            }
        }
        return null;
    }
}
