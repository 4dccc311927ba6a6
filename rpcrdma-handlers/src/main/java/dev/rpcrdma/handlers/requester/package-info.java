/**
 * The requester (client) side: {@link dev.rpcrdma.handlers.requester.RpcRdmaRequester} (credits, the call queue and
 * table, reply checking, RFC 8166 §4.5) with one {@code RequesterCall} per call, {@code CallReduction} (chunk
 * reduction, RFC 8166 §3.5; Write and Reply chunk provisioning in the connection's registered memory pool),
 * {@code CallExposure} (per-RPC memory windows and their invalidation, RFC 8166 §3.4.3, RFC 8797 §4.1) and
 * {@code WindowCache} (windows ready to be bound again).
 */
package dev.rpcrdma.handlers.requester;
