/**
 * The responder (server) side: {@link dev.rpcrdma.handlers.responder.RpcRdmaResponder} (header checks and
 * RDMA_ERROR answers, RFC 8166 §4.5; credits; the call table) with one {@code ResponderCall} per call (its Read
 * chunk pull into registered pool memory, §3.4.5), {@code CallReassembly} (XDR reassembly), {@code ReplyPlacement}
 * (Write chunk and Reply chunk filling, §3.4.6, §3.5.3; Send With Invalidate, RFC 8797 §4.1), {@code ReplySender}
 * (the reply's Send) and {@code ChunkMover}, the one place chunk data moves by RDMA Read and Write (as Linux's
 * svc_rdma_rw.c serves both its receive and its send path).
 */
package dev.rpcrdma.handlers.responder;
