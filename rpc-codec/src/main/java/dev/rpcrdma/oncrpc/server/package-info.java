/**
 * Server side: register {@link dev.rpcrdma.oncrpc.server.RpcProcedure}s in an
 * {@link dev.rpcrdma.oncrpc.server.RpcProgramRegistry}; the {@link dev.rpcrdma.oncrpc.server.RpcDispatcher} runs
 * them and answers everything RFC 5531 §9 requires; procedures reply through
 * {@link dev.rpcrdma.oncrpc.server.RpcCallContext}, now or later. A security flavor plugs in as an
 * {@link dev.rpcrdma.oncrpc.server.RpcAuthenticator} (RPCSEC_GSS: {@code dev.rpcrdma.oncrpc.gss}).
 */
package dev.rpcrdma.oncrpc.server;
