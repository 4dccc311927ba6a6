package dev.rpcrdma.channel.fabric;

import java.util.ServiceLoader;

/**
 * Finds fabric implementations installed as {@link ServiceLoader} services of {@link Fabric} (the native fabric is
 * one, named {@code "native"}). Which fabric a transport uses is chosen in the API, by
 * {@code dev.rpcrdma.channel.RdmaFabric}. Stateless: every call loads new instances; safe from any thread.
 */
public final class Fabrics {

    private Fabrics() {
    }

    /** A new instance of the installed fabric named {@code name}, usable here or not; null if none is installed. */
    public static Fabric find(String name) {
        for (Fabric f : ServiceLoader.load(Fabric.class, Fabrics.class.getClassLoader())) {
            if (name.equals(f.name())) {
                return f;
            }
        }
        return null;
    }

    /**
     * The native fabric when one is installed and usable (libibverbs, librdmacm and an RDMA device), else
     * {@code null}.
     */
    public static Fabric findNative() {
        Fabric f = find("native");
        return f != null && f.isAvailable() ? f : null;
    }
}
