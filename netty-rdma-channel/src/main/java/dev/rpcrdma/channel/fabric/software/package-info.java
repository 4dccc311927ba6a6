/**
 * The software fabric: an in-process, pure-Java model of one RDMA device and its RC transport, used when no device
 * exists (and in {@code mvn verify}). Internal, behind the fabric SPI: it imports only the SPI, and only
 * {@link dev.rpcrdma.channel.fabric.software.SoftwareFabric} is public (what {@code RdmaFabric.SOFTWARE} stands for;
 * tests use it directly).
 *
 * <p>It is a device model, not a mock. One engine thread plays the NIC: posted work requests execute
 * asynchronously, in order per queue pair, moving bytes between registered native memory with
 * {@code PlatformDependent.copyMemory}. Every access is checked like an RC responder/requester would:
 * <ul>
 *   <li>lkeys (owner PD, bounds, {@code LOCAL_WRITE} for receive/READ targets) → {@code IBV_WC_LOC_PROT_ERR} (rxe
 *       6.1 reports an lkey it cannot use for a gather as {@code IBV_WC_LOC_QP_OP_ERR});</li>
 *   <li>rkeys of regions and type-2 windows (PD, the window's bound QP, access right, bounds) →
 *       {@code IBV_WC_REM_ACCESS_ERR} at the requester; both queue pairs go to error and flush;</li>
 *   <li>a Send longer than the posted receive → {@code IBV_WC_LOC_LEN_ERR} at the responder,
 *       {@code IBV_WC_REM_INV_REQ_ERR} at the requester (the IB spec's NAK; rxe 6.1 reports
 *       {@code IBV_WC_LOC_QP_OP_ERR} and {@code IBV_WC_REM_OP_ERR}), both to error;</li>
 *   <li>no receive posted → RNR NAK: the Send is retried every {@link
 *       dev.rpcrdma.channel.fabric.software.SoftwareFabric#RNR_TIMER_MILLIS} ms, up to the connection's
 *       {@code rnr_retry_count} times (7 = forever, as in IB), then {@code IBV_WC_RNR_RETRY_EXC_ERR};</li>
 *   <li>a queue pair in error flushes all outstanding and later work with {@code IBV_WC_WR_FLUSH_ERR}; Sends aimed at
 *       a peer whose queue pair is gone or in error fail with {@code IBV_WC_RETRY_EXC_ERR};</li>
 *   <li>Send With Invalidate invalidates the responder's type-2 window (later use of the rkey fails); a target that
 *       is not a bound window of that QP → {@code IBV_WC_REM_INV_REQ_ERR} on both sides, both to error (the IB
 *       spec's NAK; rxe fails the receive the same way but has acknowledged the Send, which succeeds);</li>
 *   <li>private data is bounded (56 B connect, 196 B accept, 148 B reject) and delivered zero-padded to those sizes,
 *       as IB CM does; connecting to a port nobody listens on → {@code REJECTED} with reason 8;</li>
 *   <li>{@link dev.rpcrdma.channel.fabric.software.SoftwareFabric#likeSiw like siw} (iWARP): no RNR retry, a Send
 *       without a posted receive, a receive too short, or an RDMA Write to a key that grants nothing completes
 *       successfully at the requester, moves both queue pairs to error (the responder's TERMINATE) and disconnects
 *       both sides; work posted to a queue pair in error is never completed; private data arrives as long as it
 *       was sent; {@code rdma_connect} to a port nobody listens on fails with {@code ECONNREFUSED}; a consumer's
 *       reject is {@code REJECTED} with status {@code -ECONNRESET}.</li>
 *   <li>{@code rdma_bind_addr} checks the port as the kernel's rdma_cm does: the wildcard on a bound port →
 *       EADDRNOTAVAIL, the same address → EADDRINUSE; deregistering a region with bound windows → EINVAL.</li>
 * </ul>
 * The fabric contract suite ({@code FabricContractSuite}) holds this model against Soft-RoCE at the SPI; where the
 * two differ (the NAK for a too-long Send, receives posted to a queue pair in error, queue depths) its tests say so.
 * Completion channels and CM event channels are real Linux eventfds, so event loops wait on them exactly as on a
 * native device.
 *
 * <p>A queue pair's jobs live apart, as in rxe: {@code SoftQueuePair} checks what is posted and keeps the work
 * queues, the state and the completions; {@code SoftRequester} executes the send queue on the engine thread (RNR
 * timer, ACK timeout); {@code SoftSendDelivery} matches a Send to the peer's next receive, {@code SoftRdmaAccess}
 * executes RDMA Read and Write, {@code SoftWindowOps} binds and invalidates windows, and {@code SoftKeyChecks}
 * holds the lkey and rkey checks they share.
 *
 * <p>Like a device, the data path works on preallocated state: work queues and completion queues are bounded rings
 * of reused entries ({@code SlotRing}) and the engine thread ({@code SoftEngine}) takes one reusable task per queue
 * pair, so posting, executing and completing work requests allocates nothing in steady state (only an RNR retry
 * allocates its timer entry).
 */
package dev.rpcrdma.channel.fabric.software;
