/**
 * The responder (server) side: header checks and RDMA_ERROR answers (RFC 8166 §4.5), Read chunk pulling and
 * reassembly (§3.4.5), Write chunk and Reply chunk filling (§3.4.6, §3.5.3), Send With Invalidate (RFC 8797 §4.1).
 */
package dev.rpcrdma.handlers.responder;
