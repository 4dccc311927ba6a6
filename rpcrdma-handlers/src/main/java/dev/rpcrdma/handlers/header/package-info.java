/** The RPC-over-RDMA Version 1 transport header (RFC 8166 §4.1): values, a bounded decoder, an encoder. */
package dev.rpcrdma.handlers.header;
