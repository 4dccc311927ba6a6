/**
 * The fabric SPI: an internal, verbs-shaped interface between the Netty RDMA transport and a device.
 *
 * <p>Every type mirrors one libibverbs / librdmacm object so that a native implementation is a thin mapping:
 * {@link dev.rpcrdma.channel.fabric.VerbsDevice} ({@code ibv_context}),
 * {@link dev.rpcrdma.channel.fabric.ProtectionDomain} ({@code ibv_pd}),
 * {@link dev.rpcrdma.channel.fabric.MemoryRegion} ({@code ibv_mr}),
 * {@link dev.rpcrdma.channel.fabric.MemoryWindow} (type-2 {@code ibv_mw}),
 * {@link dev.rpcrdma.channel.fabric.CompletionChannel} ({@code ibv_comp_channel}),
 * {@link dev.rpcrdma.channel.fabric.CompletionQueue} ({@code ibv_cq}),
 * {@link dev.rpcrdma.channel.fabric.QueuePair} (RC {@code ibv_qp}),
 * {@link dev.rpcrdma.channel.fabric.CmEventChannel} ({@code rdma_event_channel}) and
 * {@link dev.rpcrdma.channel.fabric.CmId} ({@code rdma_cm_id}). Numeric constants carry the C enum values
 * ({@link dev.rpcrdma.channel.fabric.WcStatus}, {@link dev.rpcrdma.channel.fabric.WcOpcode}, ...).
 *
 * <p>Threading: objects of one connection are driven by one event loop; the implementations must still be
 * safe to use from several loops at once for different connections (as verbs are).
 *
 * <p>Implementations: {@link dev.rpcrdma.channel.fabric.software.SoftwareFabric} (pure Java, in-process) and,
 * later, a native fabric over {@code dev.rpcrdma.channel.verbs}. {@link dev.rpcrdma.channel.fabric.Fabrics}
 * selects one ({@code -Ddev.rpcrdma.fabric=software|native|auto}).
 */
package dev.rpcrdma.channel.fabric;
