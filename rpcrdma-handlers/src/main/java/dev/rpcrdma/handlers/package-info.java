/**
 * RPC-over-RDMA Version 1 (RFC 8166, RFC 8797) as Netty pipeline handlers between an
 * {@link dev.rpcrdma.channel.RdmaChannel} and rpc-codec's transport-agnostic {@code RpcDispatcher} /
 * {@code RpcClientHandler}.
 *
 * <h2>Architecture</h2>
 * <pre>
 *   server:  RdmaChannel -> {@link dev.rpcrdma.handlers.responder.RpcRdmaResponder} -> RpcDispatcher
 *   client:  RdmaChannel -> {@link dev.rpcrdma.handlers.requester.RpcRdmaRequester} -> RpcClientHandler
 * </pre>
 * Installed by {@link dev.rpcrdma.handlers.RpcRdmaServerInitializer} and
 * {@link dev.rpcrdma.handlers.RpcRdmaClientInitializer}, the counterparts of rpc-codec's TCP initializers: a server
 * moves from TCP to RDMA by changing only the event-loop factory, the channel class and the initializer.
 * <ul>
 *   <li>{@code header}: the transport header (RFC 8166 §4.1) as values, its bounded decoder and its encoder;</li>
 *   <li>{@code negotiation}: RFC 8797 CM private data and the inline thresholds it yields;</li>
 *   <li>{@code credits}: requester and responder credit accounting (RFC 8166 §3.3.1);</li>
 *   <li>{@code requester}: chunk reduction of calls, provisioning of Write chunks (one per expected DDP-eligible
 *       result item, RFC 8166 §4.3.2) and a Reply chunk, memory exposure and invalidation, reply checking; an
 *       RDMA_ERROR fails its RPC with {@link dev.rpcrdma.handlers.RpcRdmaErrorException} through rpc-codec's
 *       {@code RpcCallFailedEvent};</li>
 *   <li>{@code responder}: header checking and RDMA_ERROR answers, Read chunk pulling and reassembly, Write chunk
 *       and Reply chunk filling, Send With Invalidate.</li>
 * </ul>
 *
 * <h2>Memory exposure and invalidation (the requester)</h2>
 * Each RPC exposes only buffers of its own, copied from the call's payload (Read chunks) or allocated for the
 * reply (Write and Reply chunks): at most two regions, one per kind of access. Each region is registered with
 * {@code MW_BIND} only — its memory region grants the peer nothing — and exposed through a type-2 memory window
 * bound over exactly that region with exactly the right the chunks need: remote read for Read chunks, remote
 * write for Write and Reply chunks. The segments carry the window's rkey.
 * <p>When the RPC completes (reply or RDMA_ERROR) and before any of its bytes are handed to the RPC layer:
 * <ul>
 *   <li>if both peers set the R bit (RFC 8797 §4.1) and the RPC exposed exactly one key, the responder replies
 *       with Send With Invalidate of that key (as Linux does); the requester recognises it from
 *       {@link dev.rpcrdma.channel.RdmaReceive#invalidatedRkey()} and does not invalidate it again;</li>
 *   <li>every other window is invalidated locally by <b>deallocating</b> it ({@code ibv_dealloc_mw}), then the
 *       region is deregistered once no posted work request uses it.</li>
 * </ul>
 * Why windows and why deallocation: type-2 windows are the only user-space keys a peer may invalidate remotely
 * (a Send With Invalidate aimed at a plain {@code ibv_reg_mr} rkey breaks the connection), and they let the
 * rights be narrower than the registration. Local invalidation with {@code IBV_WR_LOCAL_INV} is never used: on
 * Soft-RoCE it oopses the kernel for a bound type-2 window ({@code rxe_invalidate_mw}, 6.1 and 6.12). Deallocation
 * invalidates just as surely and synchronously, and a fresh window is allocated for the next RPC. The price is a
 * registration per RPC (no pre-registered pool yet: a possible optimisation); a timed-out RPC keeps its exposure
 * until its reply or the disconnect (its buffers are never reused meanwhile).
 *
 * <h2>Responder memory</h2>
 * The responder registers the buffers it reads into and writes from for local access only and deregisters them
 * after the RDMA Reads completed, or after the reply's Send (which follows its RDMA Writes on the same send queue)
 * completed.
 *
 * <h2>Bad input</h2>
 * A responder answers a call whose header or chunks are wrong with RDMA_ERROR (ERR_VERS 1..1 for a version other
 * than 1, ERR_CHUNK otherwise), silently discards a message shorter than 28 bytes, and closes a connection whose
 * requester exceeds every credit grant. A requester silently discards a bad reply (RFC 8166 §4.5). Every case is
 * logged and counted in {@link dev.rpcrdma.handlers.RpcRdmaStats}.
 */
package dev.rpcrdma.handlers;
