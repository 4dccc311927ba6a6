/**
 * The requester (client) side: {@link dev.rpcrdma.handlers.requester.RpcRdmaRequester} (credits, the call queue and
 * table, reply checking, RFC 8166 §4.5) with one {@code RequesterCall} per call, {@code CallReduction} (chunk
 * reduction, RFC 8166 §3.5; Write and Reply chunk provisioning in the connection's registered memory pool),
 * {@code CallExposure} (the memory one call exposes and its invalidation, RFC 8166 §3.4.3, RFC 8797 §4.1) through
 * the connection's {@code ChunkRegistration}, chosen once per connection: {@code WindowRegistration} (type-2 memory
 * windows, with {@code WindowCache}: windows ready to be bound again) or {@code RegionRegistration} (a memory region
 * per call, on devices without windows).
 */
package dev.rpcrdma.handlers.requester;
