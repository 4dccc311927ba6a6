/**
 * Internal bindings to the real RDMA libraries through jnr-ffi: {@link dev.rpcrdma.channel.verbs.Verbs}
 * (libibverbs) and {@link dev.rpcrdma.channel.verbs.RdmaCm} (librdmacm), one facade per library that turns errno
 * into {@link dev.rpcrdma.channel.verbs.NativeCallException}; struct layouts as offset constants
 * ({@code IbvLayouts}, {@code RdmaCmLayouts}) checked against the C headers by a test; flyweights over one native
 * block for the data path
 * ({@link dev.rpcrdma.channel.verbs.SendWorkRequests}, {@link dev.rpcrdma.channel.verbs.RecvWorkRequests},
 * {@link dev.rpcrdma.channel.verbs.WorkCompletions}), whose static-inline verbs are called through
 * {@code ibv_context->ops} with jffi ({@link dev.rpcrdma.channel.verbs.NativeCalls}).
 *
 * <p>Internal, not API: the bottom layer, importing of the transport only the fabric SPI's structs
 * ({@code QpCapabilities}, {@code ConnectionParameters}), whose values it passes to the libraries unchanged, and
 * libc ({@code dev.rpcrdma.channel.unix}). Classes are public only so that the
 * native fabric ({@code dev.rpcrdma.channel.fabric.ibverbs}, its only user besides {@code NativeCallBenchmark}) can
 * build on them, and the jnr-ffi library interfaces because jnr-ffi implements them in its own class loader; the
 * rest (struct layouts, native memory, the work-request block) is package-private. Native memory given to the
 * device comes from {@code NativeMemory} or from direct buffers the caller keeps alive; never from GC-managed
 * jnr-ffi memory.
 */
package dev.rpcrdma.channel.verbs;
