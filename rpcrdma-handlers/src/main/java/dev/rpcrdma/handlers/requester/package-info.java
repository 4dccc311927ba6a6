/**
 * The requester (client) side of RPC-over-RDMA Version 1.
 *
 * <p>{@link dev.rpcrdma.handlers.requester.RpcRdmaRequester} sits between the RDMA channel and the
 * transport-agnostic {@code RpcClientHandler} and reaches the transport only through the {@code RdmaConnection} it
 * was given. Outbound, each call becomes a {@code RequesterCall} that waits for a credit (RFC 8166 §3.3.1: never
 * more calls outstanding than the last grant; the rest queue, and the connection's upper-layer writability is off
 * while they do), then {@code CallReduction} reduces it: sent whole inline (RDMA_MSG); else with its DDP-eligible
 * items moved into Read chunks at their XDR positions, without XDR pad (RFC 8166 §3.4.5.2); else as a Long Call (the
 * whole message in a position-zero Read chunk, RDMA_NOMSG). One Write chunk is provisioned per expected DDP-eligible
 * result item, in order (RFC 8166 §4.3.2.1; an item hinted 0 gets an empty Write chunk so it comes back inline,
 * §4.3.2.3), and a Reply chunk when the reply may exceed the server-to-client threshold; both may be present
 * together. Chunk memory comes from the connection's registered memory pool.
 *
 * <p>{@code CallExposure} is the memory one call exposes and its invalidation (RFC 8166 §3.4.3, RFC 8797 §4.1),
 * through the connection's {@code ChunkRegistration}, chosen once per connection: {@code WindowRegistration} (type-2
 * memory windows, with {@code WindowCache}: windows ready to be bound again) or {@code RegionRegistration} (a memory
 * region per call, on devices without windows). A Send With Invalidate of the RPC's only key is recognised and that
 * key not invalidated again; everything else the RPC exposed is invalidated before its buffers are used.
 *
 * <p>A call's write promise completes as any Netty write does: when its Send is posted, or failed when the call could
 * not be built or sent (its credit and exposure are then given back). The RPC's outcome travels upwards: its reply
 * as an {@code InboundRpcMessage}; an RDMA_ERROR answer (RFC 8166 §4.5) once, as an {@code RpcCallFailedEvent}
 * carrying an {@code RpcRdmaErrorException}. A call the RPC layer gave up on (timeout) keeps its credit and exposure
 * until its reply or RDMA_ERROR arrives, or the connection closes: the responder may still use its chunks. Replies
 * whose transport header is malformed or does not fit what the call provided (a Read list, more Write chunks, longer
 * segments, foreign handles, xid mismatch) are discarded, logged and counted (RFC 8166 §4.5).
 *
 * <p>Per call nothing is allocated in steady state: calls sent are kept in one primitive-keyed table by xid, call
 * objects come from a free list bounded by {@code maxRequests} and go back only when nothing can reach them, and a
 * plain RDMA_MSG reply (RFC 8166 §4.1) is read in place without a header object. The commonest messages
 * ({@code PlainWords}) take one pass each: a call with AUTH_NONE and no chunk has both its headers stored into its
 * Send at once, and a MSG_ACCEPTED SUCCESS reply with an AUTH_NONE verifier after a plain RDMA_MSG header has both
 * checked at once and goes up without its RPC header being read again. {@code RequesterForm} is the form
 * of the messages above, chosen once per handler: RPC messages ({@code RequesterMessages}) or whole-message
 * {@code ByteBuf}s ({@code RequesterBytes}, for {@code RpcRdmaFraming}).
 */
package dev.rpcrdma.handlers.requester;
