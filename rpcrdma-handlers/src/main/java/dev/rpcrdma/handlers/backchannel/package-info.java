/**
 * Backward-direction RPC over RPC-over-RDMA Version 1 (RFC 8167), the NFSv4.1 callback channel on the connection
 * the client made, compatible with Linux (xprtrdma's backchannel.c and svcrdma's svc_rdma_backchannel.c).
 * {@link dev.rpcrdma.handlers.backchannel.BackwardMessages} holds the wire rules both sides share (shape, size);
 * both roles are made of a {@link dev.rpcrdma.handlers.backchannel.BackwardSetup}.
 *
 * <p>{@link dev.rpcrdma.handlers.backchannel.BackwardResponder} is the client's side, used by the requester. It
 * grants backward credits (the client's receive queue holds that many receives more than the forward direction
 * needs, §4.3.1).
 * <ul>
 *   <li>A backward call with chunk lists is answered RDMA_ERROR ERR_CHUNK, as §5.3 requires of a responder that
 *       supports no chunks in the reverse direction: logged, counted, the connection stays.</li>
 *   <li>A backward call that breaks the other wire rules (rdma_xid not the RPC xid, larger than the backchannel,
 *       §4.2, §5.1), or that exceeds the backward credits (§4.1 with RFC 8166 §3.3.1; Linux's client drops the
 *       connection too, "backchannel overflow"), closes the connection: logged, counted.</li>
 *   <li>A well-formed backward call on a connection whose backchannel the upper layer has not enabled, or that has no
 *       callback service at all, is logged, counted ({@code RpcStats.backwardDrops()}) and dropped (§6).</li>
 *   <li>Replies carry the backward grant in rdma_credit (never 0, RFC 8166 §3.3.1). A reply larger than the
 *       backchannel is replaced by SYSTEM_ERR (which fits), logged and counted, and its write promise fails.</li>
 * </ul>
 *
 * <p>{@link dev.rpcrdma.handlers.backchannel.BackwardRequester} is the server's side, used by the responder.
 * <ul>
 *   <li>Credits (§4.1): never more backward calls outstanding than the client's backward grant (one until its first
 *       backward reply says more, as RFC 8166 §3.3.3 does for the forward direction) nor than the receives this
 *       server reserves for backward replies (§4.3.2: the forward grant leaves them out); the others wait in order,
 *       queued, not lost. A backward reply's rdma_credit of 0 (which RFC 8166 §3.3.1 forbids) counts as 1.</li>
 *   <li>A backward call made before the upper layer enabled the backchannel, or larger than it carries, is not sent:
 *       the call fails with {@code RpcBackchannelException} (through {@code RpcCallFailedEvent}, then its write
 *       promise).</li>
 *   <li>A received backward reply that breaks the wire rules (chunk lists, rdma_xid, size, §4.2, §5.2, §5.3) closes
 *       the connection, logged and counted; one that answers no outstanding call is discarded, logged and counted. A
 *       backward call the RPC layer gave up on (timeout) keeps its credit until its reply or the connection's end, as
 *       the client may still answer it.</li>
 * </ul>
 */
package dev.rpcrdma.handlers.backchannel;
