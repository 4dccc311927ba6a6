/**
 * The fabric SPI: an internal, verbs-shaped interface between the Netty RDMA transport and a device. Internal SPI,
 * not API: its types are public only so that the fabric implementations in the subpackages can implement them;
 * applications use {@code dev.rpcrdma.channel} ({@code RdmaFabric} chooses the fabric).
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
 * <p>Implementations: {@code dev.rpcrdma.channel.fabric.software} (pure Java, in-process) and
 * {@code dev.rpcrdma.channel.fabric.ibverbs} (native, over {@code dev.rpcrdma.channel.verbs}, found as a
 * {@link java.util.ServiceLoader} service by {@link dev.rpcrdma.channel.fabric.Fabrics}). This package imports
 * neither: {@code dev.rpcrdma.channel.RdmaFabric} selects one (native unless
 * {@code -Ddev.rpcrdma.fabric=software|auto} says otherwise).
 */
package dev.rpcrdma.channel.fabric;
