package dev.rpcrdma.benchmarks.nativecall;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallContextCache;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import dev.rpcrdma.channel.verbs.NativeCalls;
import dev.rpcrdma.channel.verbs.SendWorkRequests;
import java.util.concurrent.TimeUnit;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.IgnoreError;
import jnr.ffi.annotations.Out;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one native call on the paths the verbs bindings use, measured on cheap libc functions so that the call
 * machinery dominates:
 * <ul>
 *   <li>{@code functionPointer*}: jffi {@code Invoker.invokeN*} on a function address with a cached
 *       {@code CallContext} and no errno saving: how {@code ibv_post_send}/{@code ibv_poll_cq} (static inline in
 *       verbs.h) are reached through {@code ibv_context->ops}. {@code bindings*} goes through the bindings' own
 *       {@link NativeCalls} helpers (the exact code of the data path).</li>
 *   <li>{@code jnrInterface*}: a jnr-ffi interface method, with and without {@code @IgnoreError}: how the
 *       control-path verbs and librdmacm are called.</li>
 * </ul>
 * Target: at most about 10 ns per call for the data path. Run: {@code java -jar benchmarks.jar NativeCallBenchmark}.
 *
 * <p>The one benchmark that imports the internal bindings ({@code dev.rpcrdma.channel.verbs}, not an API): it
 * measures their native call path itself, so it must call that code and not the transport's public API.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class NativeCallBenchmark {

    /** libc through jnr-ffi, errno saved after every call (the default). */
    public interface LibCSavingErrno {
        long labs(long value);
    }

    /** libc through jnr-ffi without errno saving. */
    public interface LibCIgnoringErrno {
        @IgnoreError
        long labs(long value);
    }

    /**
     * libc through jnr-ffi with two {@code @Out long[]} parameters, errno saved: the shape in which the bindings
     * called {@code ibv_get_cq_event(channel, @Out long[] cq, @Out long[] cqContext)} until it moved to jffi.
     */
    public interface LibCOutArrays {
        int memcmp(@Out long[] a, @Out long[] b, long n);
    }

    private static final Invoker INVOKER = Invoker.getInstance();

    private long labs;
    private long memcmp;
    private CallContext longLong;
    private LibCSavingErrno savingErrno;
    private LibCIgnoringErrno ignoringErrno;
    private LibCOutArrays outArrays;
    private long buffer;
    private long value = -42;
    private SendWorkRequests sendWr;
    private long wrBlock;

    @Setup
    public void setUp() {
        // Symbol lookup as jnr-ffi does it (jffi Library = dlopen/dlsym).
        Library libc = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.LOCAL);
        labs = libc.getSymbolAddress("labs");
        memcmp = libc.getSymbolAddress("memcmp");
        if (labs == 0 || memcmp == 0) {
            throw new IllegalStateException("libc symbols not found: " + Library.getLastError());
        }
        longLong = CallContextCache.getInstance().getCallContext(Type.SLONG, new Type[] {Type.SLONG},
                CallingConvention.DEFAULT, false);
        savingErrno = LibraryLoader.create(LibCSavingErrno.class).load("libc.so.6");
        ignoringErrno = LibraryLoader.create(LibCIgnoringErrno.class).load("libc.so.6");
        outArrays = LibraryLoader.create(LibCOutArrays.class).load("libc.so.6");
        buffer = MemoryIO.getInstance().allocateMemory(64, true);
        sendWr = new SendWorkRequests(1, 1);
        wrBlock = MemoryIO.getInstance().allocateMemory(128, true);
    }

    @TearDown
    public void tearDown() {
        MemoryIO.getInstance().freeMemory(buffer);
        MemoryIO.getInstance().freeMemory(wrBlock);
        sendWr.close();
    }

    /**
     * One Send work request written as the data path writes each (the chain started over, a request with one SGE):
     * the 128-byte {@code struct ibv_send_wr} zeroed with plain stores.
     */
    @Benchmark
    public long sendWorkRequestWritten() {
        sendWr.clear();
        int i = sendWr.add(value, 0, 2);
        sendWr.addSge(i, buffer, 16, 7);
        return sendWr.wr(i);
    }

    /** The zeroing of one {@code struct ibv_send_wr} as it was: {@code Unsafe.setMemory} of 128 bytes. */
    @Benchmark
    public long sendWorkRequestSetMemory() {
        MemoryIO.getInstance().setMemory(wrBlock, 128, (byte) 0);
        return wrBlock;
    }

    /** The Java floor: no native call. */
    @Benchmark
    public long javaBaseline() {
        return Math.abs(value);
    }

    /** {@code long labs(long)} through its address: jffi invokeN1, cached context, no errno. */
    @Benchmark
    public long functionPointer1Arg() {
        return INVOKER.invokeN1(longLong, labs, value);
    }

    /** The same through the bindings' helper. */
    @Benchmark
    public long bindings1Arg() {
        return NativeCalls.invokeLongLong(labs, value);
    }

    /**
     * {@code int memcmp(p, p, 0)} through its address with the post_send call context
     * ({@code int f(void *, void *, void *)}): the shape of {@code ibv_post_send}/{@code ibv_poll_cq}.
     */
    @Benchmark
    public int bindings3ArgPostSendShape() {
        return NativeCalls.invokeIntPtrPtrPtr(memcmp, buffer, buffer + 8, 0);
    }

    /**
     * The completion-channel wake-up's call in the shape the bindings avoid: two fresh {@code long[1]} out-parameters
     * through jnr-ffi (marshalled in and out of native memory per call), errno saved; {@code memcmp(a, b, 0)} so
     * that the machinery dominates.
     */
    @Benchmark
    public long jnrOutArraysCqEventShape() {
        long[] cq = new long[1];
        long[] context = new long[1];
        return outArrays.memcmp(cq, context, 0) + cq[0];
    }

    /**
     * The same call as {@code Verbs.getCqEvent(channel, scratch)} makes it: jffi on the function's address, errno
     * saved, the out-pointers in 16 bytes of native scratch memory, read back with one load.
     */
    @Benchmark
    public long bindingsOutScratchCqEventShape() {
        return NativeCalls.invokeIntPtrPtrPtrSavingErrno(memcmp, buffer, buffer + 8, 0)
                + MemoryIO.getInstance().getAddress(buffer);
    }

    /** {@code labs} through a jnr-ffi interface that saves errno. */
    @Benchmark
    public long jnrInterfaceSavingErrno() {
        return savingErrno.labs(value);
    }

    /** {@code labs} through a jnr-ffi interface with {@code @IgnoreError}. */
    @Benchmark
    public long jnrInterfaceIgnoreError() {
        return ignoringErrno.labs(value);
    }
}
