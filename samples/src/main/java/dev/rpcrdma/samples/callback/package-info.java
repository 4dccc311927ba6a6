/**
 * An NFSv4.1-style callback demo (RFC 5661 §2.10.3.1, RFC 8167): a client "creates a session" with the
 * backchannel enabled; while its forward calls go on, the server calls it back on the same connection with CB_NULL
 * and a CB_RECALL-shaped CB_COMPOUND (program 0x40000000, as the Linux NFS client's); the output shows both
 * directions and their latency. Over TCP or RPC-over-RDMA with the same handler code. {@code samples/run-callback-demo}.
 */
package dev.rpcrdma.samples.callback;
