/**
 * XDR (RFC 4506): {@link dev.rpcrdma.oncrpc.xdr.XdrReader} (every variable-length item bounded before anything is
 * allocated; failures are {@link dev.rpcrdma.oncrpc.xdr.XdrException}), {@link dev.rpcrdma.oncrpc.xdr.XdrWriter},
 * and {@link dev.rpcrdma.oncrpc.xdr.XdrPayload} with its {@link dev.rpcrdma.oncrpc.xdr.DdpItem}s for RFC 8166 §3.4
 * direct data placement.
 */
package dev.rpcrdma.oncrpc.xdr;
