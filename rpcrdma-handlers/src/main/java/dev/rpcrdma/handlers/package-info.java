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
 * moves from TCP to RDMA by changing only the event-loop factory, the channel class and the initializer. The
 * initializers are the only code here that knows {@code RdmaChannel}: they hand each handler the channel as a
 * {@link dev.rpcrdma.channel.RdmaConnection} (peer private data, posted receives, memory registration and windows,
 * upper-layer writability), the one narrow interface the handlers reach the transport through, so a unit test can
 * fake it. RDMA Read, RDMA Write and window binds are messages written into the pipeline. An inline call's or
 * reply's Send goes straight into the channel's send queue ({@code RdmaConnection.sendDirect}, internal) when the
 * handler is first in the pipeline and nothing waits in the channel's outbound buffer, which is exactly where
 * {@code ctx.writeAndFlush} would take it; a handler of yours between the channel and these handlers sees every
 * Send as before.
 * <ul>
 *   <li>{@code header}: the transport header (RFC 8166 §4.1) as values, its bounded decoder and its encoder;</li>
 *   <li>{@code negotiation}: RFC 8797 CM private data and the inline thresholds it yields;</li>
 *   <li>{@code credits}: requester and responder credit accounting (RFC 8166 §3.3.1);</li>
 *   <li>{@code requester}: the client side (below);</li>
 *   <li>{@code responder}: the server side (below);</li>
 *   <li>{@link dev.rpcrdma.handlers.RdmaReceiveHandler}: the inbound skeleton both share (an
 *       {@link dev.rpcrdma.channel.RdmaReceive} is handled, then released).</li>
 * </ul>
 *
 * <h2>One RPC, from {@code RpcClient.call} to its reply</h2>
 * <ol>
 *   <li>{@code RpcClientHandler} (rpc-codec) allocates the xid, keeps the call's future in its table and writes an
 *       {@code OutboundRpcMessage}.</li>
 *   <li>{@code RpcRdmaRequester} wraps it in a {@code RequesterCall}, the per-call context, and queues it until a
 *       credit is free (writability off meanwhile, RFC 8166 §3.3.1).</li>
 *   <li>{@code CallReduction} decides inline, Read chunks or Long Call (RFC 8166 §3.5), provisions Write and Reply
 *       chunks and exposes the call's memory ({@code CallExposure}); the Send is written, its promise completes
 *       when it is posted, and the call enters the requester's call table (xid to {@code RequesterCall}).</li>
 *   <li>On the server, {@code RpcRdmaResponder} checks the header (RDMA_ERROR on bad input, RFC 8166 §4.5), admits
 *       the call against its credits and keeps a {@code ResponderCall} in its call table; the call's Read chunks
 *       are pulled with RDMA Read, the {@code ResponderCall} counting them, and the stream reassembled
 *       ({@code CallReassembly}) and passed to {@code RpcDispatcher} as an {@code InboundRpcMessage}.</li>
 *   <li>The procedure's reply comes back to the responder, which takes its {@code ResponderCall} out of the table;
 *       {@code ReplyPlacement} decides which result items go into Write chunks and whether the rest fits inline or
 *       goes into the Reply chunk; RDMA Writes, then the Send (With Invalidate when RFC 8797 §4.1 allows).</li>
 *   <li>The requester matches the reply to its {@code RequesterCall}, checks it against what was provided,
 *       ends the exposure (invalidation before any byte is used) and passes an {@code InboundRpcMessage} up;
 *       {@code RpcClientHandler} completes the future. An RDMA_ERROR instead is reported once, as an
 *       {@code RpcCallFailedEvent} carrying {@link dev.rpcrdma.handlers.RpcRdmaErrorException}.</li>
 * </ol>
 * Each direction of a connection keeps one primitive-keyed call table of per-call contexts: the requester's holds
 * the calls this end sent, the responder's the calls it received. A backward direction (RFC 8167) adds the other
 * role's table on the same connection beside the forward one.
 *
 * <h2>Reply provisioning: the same calls as over TCP</h2>
 * A requester must offer the chunks a reply needs before it sends the call (RFC 8166 §3.5.4, §4.3.2): a reply over
 * the server-to-client inline threshold with no adequate Reply chunk can only be answered ERR_CHUNK
 * (§4.5.3). So that a call written for TCP works unchanged, every call has a largest reply: its
 * {@code CallOptions.maxReplySize}, else its procedure's declared one ({@code RpcProcedureSpec}), else the
 * connection's {@link dev.rpcrdma.handlers.RpcRdmaConfig#maxReplySize()} (1 MiB by default); NULL calls declare 512
 * bytes. {@code CallReduction} offers a Reply chunk of that size whenever the reply might not fit inline, and Write
 * chunks only for the DDP-eligible items the call's hints name (hints optimise; they are never needed). The reply
 * decoder reads the same way whatever carried the bytes: an inline reply, a Long Reply out of the Reply chunk
 * (decoded as if inline), or DDP items placed by Write chunks, which {@code XdrReader}'s plain opaque reads take by
 * length as {@code readDdpOpaque} takes them by position. A reply over the maximum fails the call with an
 * {@link dev.rpcrdma.handlers.RpcRdmaErrorException} naming the Reply chunk offered and the settings that raise it.
 * Cost: one piece of the connection's registered memory pool of the maximum reply size (not cleared: the peer may
 * only write it) exposed per outstanding call; no registration, and bounded: when the pool
 * ({@code RdmaChannelOption.MEMORY_POOL_MAX_BYTES}) cannot hold another call's chunks, calls wait (counted in
 * {@link dev.rpcrdma.handlers.RpcRdmaStats#memoryWaits()}) until earlier ones give their memory back.
 *
 * <h2>Memory exposure and invalidation (the requester)</h2>
 * Each RPC exposes only buffers of its own, pieces of the connection's registered memory pool
 * ({@link dev.rpcrdma.channel.RdmaConnection#memoryPool()}: slabs registered once with {@code LOCAL_WRITE | MW_BIND}
 * only, so their memory regions grant the peer nothing), filled from the call's payload (Read chunks; a single
 * DDP-eligible item the application already wrote into a pool buffer is exposed where it is, without a copy) or
 * provisioned for the reply (Write and Reply chunks): at most two regions, one per kind of access. Each is exposed
 * through a type-2 memory window bound (a work request, no system call) over exactly that piece with exactly the
 * right the chunks need: remote read for Read chunks, remote write for Write and Reply chunks. The segments carry
 * the window's rkey. Windows come from a per-connection cache; nothing is registered or allocated per RPC in
 * steady state.
 * <p>When the RPC completes (reply or RDMA_ERROR) and before any of its bytes are handed to the RPC layer:
 * <ul>
 *   <li>if both peers set the R bit (RFC 8797 §4.1) and the RPC exposed exactly one key, the responder replies
 *       with Send With Invalidate of that key (as Linux does); the requester recognises it from
 *       {@link dev.rpcrdma.channel.RdmaReceive#invalidatedRkey()} and does not invalidate it again; that window
 *       goes back to the cache at once and is bound again for a later RPC under the next rkey
 *       ({@code ibv_inc_rkey}): the fast path;</li>
 *   <li>every other window is invalidated locally with an {@code IBV_WR_LOCAL_INV} work request
 *       ({@link dev.rpcrdma.channel.RdmaLocalInvalidate}); the reply is handed up, and the window cached and the
 *       piece given back, when it completed (RFC 8166 §3.4.5.1: invalidate before any byte is used);</li>
 *   <li>where the device does not take a Local Invalidate
 *       ({@link dev.rpcrdma.channel.RdmaConnection#localInvalidateSupported()} false; docs/providers.md) the window
 *       is <b>deallocated</b> instead ({@code ibv_dealloc_mw}), which invalidates just as surely and synchronously,
 *       and a fresh window is allocated for the next RPC
 *       ({@link dev.rpcrdma.handlers.RpcRdmaStats#windowAllocations()}); a window the responder invalidated is
 *       still bound again.</li>
 * </ul>
 * Why windows: type-2 windows are the only user-space keys a peer may invalidate remotely (a Send With Invalidate
 * aimed at a plain {@code ibv_reg_mr} rkey breaks the connection), and they let the rights be narrower than the
 * registration. A window is cached only after its last binding ended (remote invalidation seen, Local Invalidate
 * completed), and a piece is given back only then, so a window is never bound again while the peer may hold its
 * rkey and memory the peer may still reach is never reused. A timed-out RPC keeps its exposure until its reply or
 * the disconnect (its buffers are never reused meanwhile).
 *
 * <h2>Responder memory</h2>
 * The responder reads a call's Read chunks into one piece of its connection's registered memory pool (the RDMA
 * Reads written together and posted with one flush) and writes a reply's Write-chunk and Long Reply data from one
 * piece (the RDMA Writes and the reply's Send written together and flushed once, so the send queue posts them as
 * one chain); the piece goes back after the Reads completed and the call was consumed, or after the reply's Send
 * (which follows its RDMA Writes on the same send queue) completed. Nothing is registered per call. A pull that
 * finds the pool exhausted waits for memory; a reply never waits (calls being pulled may hold all of it until their
 * replies are sent): it registers a region of its own for that reply, counted as a memory wait.
 *
 * <h2>Bad input</h2>
 * A responder answers a call whose header or chunks are wrong with RDMA_ERROR (ERR_VERS 1..1 for a version other
 * than 1, ERR_CHUNK otherwise), silently discards a message shorter than 28 bytes, and closes a connection whose
 * requester exceeds every credit grant. A requester silently discards a bad reply (RFC 8166 §4.5). Every case is
 * logged and counted in {@link dev.rpcrdma.handlers.RpcRdmaStats}.
 */
package dev.rpcrdma.handlers;
