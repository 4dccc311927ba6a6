/**
 * The requester (client) side: credits, chunk reduction (RFC 8166 §3.5), Write and Reply chunk provisioning,
 * per-RPC memory windows and their invalidation, reply checking (RFC 8166 §4.5).
 */
package dev.rpcrdma.handlers.requester;
