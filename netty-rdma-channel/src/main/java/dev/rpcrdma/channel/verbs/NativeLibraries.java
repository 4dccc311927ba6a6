package dev.rpcrdma.channel.verbs;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * Loads the native libraries once, lazily, by their versioned sonames (the unversioned names exist only with the
 * {@code -dev} packages). A library that fails to load is remembered as a {@link Loaded} with a cause, so
 * {@code dev.rpcrdma.channel.Rdma} can report it without throwing.
 */
final class NativeLibraries {

    /** A loaded library or the reason it could not be loaded. */
    static final class Loaded<T> {
        final T library;
        final Runtime runtime;
        final Throwable cause;

        private Loaded(T library, Runtime runtime, Throwable cause) {
            this.library = library;
            this.runtime = runtime;
            this.cause = cause;
        }

        T get() {
            if (library == null) {
                throw new UnsupportedOperationException("native library not loaded", cause);
            }
            return library;
        }

        int lastError() {
            return runtime.getLastError();
        }
    }

    private NativeLibraries() {
    }

    static <T> Loaded<T> load(Class<T> type, String soname, String debianPackage) {
        try {
            T lib = LibraryLoader.create(type).failImmediately().load(soname);
            return new Loaded<>(lib, Runtime.getRuntime(lib), null);
        } catch (Throwable t) {
            UnsatisfiedLinkError e = new UnsatisfiedLinkError(
                    "cannot load " + soname + " (install the Debian package " + debianPackage + "): " + t.getMessage());
            e.initCause(t);
            return new Loaded<>(null, null, e);
        }
    }

    static final class Ibverbs {
        static final Loaded<LibIbverbs> LIB = load(LibIbverbs.class, LibIbverbs.SONAME, "libibverbs1");

        private Ibverbs() {
        }
    }

    static final class Rdmacm {
        static final Loaded<LibRdmacm> LIB = load(LibRdmacm.class, LibRdmacm.SONAME, "librdmacm1");

        private Rdmacm() {
        }
    }
}
