/**
 * Internal bindings to the real RDMA libraries through jnr-ffi: {@link dev.rpcrdma.channel.verbs.Verbs}
 * (libibverbs) and {@link dev.rpcrdma.channel.verbs.RdmaCm} (librdmacm), one facade per library that turns errno
 * into {@link dev.rpcrdma.channel.verbs.NativeCallException}; struct layouts as offset constants
 * ({@link dev.rpcrdma.channel.verbs.IbvLayouts}, {@link dev.rpcrdma.channel.verbs.RdmaCmLayouts}) checked against
 * the C headers by a test; flyweights over one native block for the data path
 * ({@link dev.rpcrdma.channel.verbs.SendWorkRequests}, {@link dev.rpcrdma.channel.verbs.RecvWorkRequests},
 * {@link dev.rpcrdma.channel.verbs.WorkCompletions}), whose static-inline verbs are called through
 * {@code ibv_context->ops} with jffi ({@link dev.rpcrdma.channel.verbs.NativeCalls}).
 *
 * <p>Not a public API: classes are public only so that the transport ({@code dev.rpcrdma.channel.fabric...}) can
 * build on them. Native memory given to the device comes from {@link dev.rpcrdma.channel.verbs.NativeMemory} or
 * from direct buffers the caller keeps alive; never from GC-managed jnr-ffi memory.
 */
package dev.rpcrdma.channel.verbs;
