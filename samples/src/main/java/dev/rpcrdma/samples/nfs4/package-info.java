/**
 * A small NFSv4.1 server (RFC 5661) on the project's RPC stack, mountable by the Linux kernel client over TCP and
 * RPC-over-RDMA: {@link dev.rpcrdma.samples.nfs4.Nfs4Server} starts it ({@code samples/run-nfs-server}); a
 * COMPOUND is decoded and run one operation at a time by {@code CompoundProcessor}, with all protocol state
 * (clients, sessions and their reply caches, stateids, leases, delegations) in {@code Nfs4State}, the one lock of
 * the server; callbacks (CB_RECALL) go over the client's own connection through the RPC backchannel.
 */
package dev.rpcrdma.samples.nfs4;
