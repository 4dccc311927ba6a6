package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.unix.Libc;
import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallContextCache;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Type;

/**
 * Calls C functions through their address with jffi, for the verbs that are {@code static inline} in verbs.h and
 * reach the provider through {@code ibv_context->ops}. The data-path shapes save no errno and allocate nothing.
 *
 * <p>Internal API, public only so that benchmarks can measure the same path.
 */
public final class NativeCalls {
    private static final Invoker INVOKER = Invoker.getInstance();

    /** {@code int f(void *, void *, void *)}, no errno: post_send, post_recv. */
    static final CallContext INT_PTR_PTR_PTR = context(Type.SINT32, false, Type.POINTER, Type.POINTER, Type.POINTER);
    /** {@code int f(void *, int, void *)}, no errno: poll_cq. */
    static final CallContext INT_PTR_INT_PTR = context(Type.SINT32, false, Type.POINTER, Type.SINT32, Type.POINTER);
    /** {@code int f(void *, int)}, no errno: req_notify_cq. */
    static final CallContext INT_PTR_INT = context(Type.SINT32, false, Type.POINTER, Type.SINT32);
    /** {@code int f(void *, void *, void *)}, saves errno: ibv_get_cq_event. */
    static final CallContext INT_PTR_PTR_PTR_ERRNO = context(Type.SINT32, true, Type.POINTER, Type.POINTER,
            Type.POINTER);
    /** {@code void *f(void *, int)}, saves errno: alloc_mw. */
    static final CallContext PTR_PTR_INT_ERRNO = context(Type.POINTER, true, Type.POINTER, Type.SINT32);
    /** {@code int f(void *)}, no errno (the result is the errno value): dealloc_mw. */
    static final CallContext INT_PTR = context(Type.SINT32, false, Type.POINTER);
    /** {@code long f(long)}, no errno: for benchmarks on libc functions such as {@code labs}. */
    static final CallContext LONG_LONG = context(Type.SLONG, false, Type.SLONG);

    private NativeCalls() {
    }

    private static CallContext context(Type returnType, boolean saveErrno, Type... params) {
        return CallContextCache.getInstance().getCallContext(returnType, params, CallingConvention.DEFAULT, saveErrno);
    }

    static int invokeInt3(CallContext ctx, long function, long a, long b, long c) {
        return (int) INVOKER.invokeN3(ctx, function, a, b, c);
    }

    static int invokeInt2(CallContext ctx, long function, long a, long b) {
        return (int) INVOKER.invokeN2(ctx, function, a, b);
    }

    static int invokeInt1(CallContext ctx, long function, long a) {
        return (int) INVOKER.invokeN1(ctx, function, a);
    }

    static long invokePointer2(CallContext ctx, long function, long a, long b) {
        return INVOKER.invokeN2(ctx, function, a, b);
    }

    /** The errno saved by the last call made with an errno-saving context on this thread. */
    static int lastError() {
        return LastError.getInstance().get();
    }

    /**
     * Calls {@code long f(long)} at {@code function} the way the data path calls provider functions (jffi, no errno,
     * no allocation). For benchmarks.
     */
    public static long invokeLongLong(long function, long arg) {
        return INVOKER.invokeN1(LONG_LONG, function, arg);
    }

    /**
     * Calls {@code int f(void *, void *, void *)} at {@code function} exactly as {@link Verbs#postSend} calls
     * {@code ops.post_send} (same call context, no errno, no allocation). For benchmarks.
     */
    public static int invokeIntPtrPtrPtr(long function, long a, long b, long c) {
        return invokeInt3(INT_PTR_PTR_PTR, function, a, b, c);
    }

    /**
     * Calls {@code int f(void *, void *, void *)} at {@code function} exactly as {@link Verbs#getCqEvent(long, long)}
     * calls {@code ibv_get_cq_event} after a failure (errno saved, no allocation). For benchmarks.
     */
    public static int invokeIntPtrPtrPtrSavingErrno(long function, long a, long b, long c) {
        return invokeInt3(INT_PTR_PTR_PTR_ERRNO, function, a, b, c);
    }

    /** The address of an exported symbol of libc, for benchmarks ({@code labs}, {@code getpid}...). */
    public static long libcSymbol(String name) {
        return symbol(Libc.SONAME, name);
    }

    /** The address of {@code name} in {@code soname} (loaded once, cached by jffi). */
    static long symbol(String soname, String name) {
        long handle = com.kenai.jffi.Library.getCachedInstance(soname, com.kenai.jffi.Library.LAZY).getSymbolAddress(name);
        if (handle == 0) {
            throw new IllegalArgumentException("no symbol " + name + " in " + soname);
        }
        return handle;
    }
}
