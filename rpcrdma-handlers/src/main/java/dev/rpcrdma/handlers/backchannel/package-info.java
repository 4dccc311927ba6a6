/**
 * Backward-direction RPC over RPC-over-RDMA Version 1 (RFC 8167), the NFSv4.1 callback channel on the connection
 * the client made, compatible with Linux (xprtrdma's backchannel.c and svcrdma's svc_rdma_backchannel.c).
 * {@link dev.rpcrdma.handlers.backchannel.BackwardMessages} holds the wire rules both sides share (shape, size);
 * {@link dev.rpcrdma.handlers.backchannel.BackwardResponder} is the client's side (serves backward calls within the
 * backward credits it grants), used by the requester; {@link dev.rpcrdma.handlers.backchannel.BackwardRequester} is
 * the server's side (sends backward calls within the client's grant, matches their replies), used by the responder.
 */
package dev.rpcrdma.handlers.backchannel;
