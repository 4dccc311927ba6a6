/**
 * The requester (client) side: {@link dev.rpcrdma.handlers.requester.RpcRdmaRequester} (credits, the call queue and
 * table, reply checking, RFC 8166 §4.5) with one {@code RequesterCall} per call, {@code CallReduction} (chunk
 * reduction, RFC 8166 §3.5; Write and Reply chunk provisioning) and {@code CallExposure} (per-RPC memory windows and
 * their invalidation).
 */
package dev.rpcrdma.handlers.requester;
