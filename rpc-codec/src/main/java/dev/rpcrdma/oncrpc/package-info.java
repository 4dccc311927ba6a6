/**
 * ONC RPC version 2 (RFC 5531) and XDR (RFC 4506) for Netty, independent of the transport.
 *
 * <ul>
 *   <li>{@link dev.rpcrdma.oncrpc.xdr}: bounded XDR reader/writer and {@code XdrPayload}, an outbound stream of
 *       plain segments and DDP-eligible items (what RPC-over-RDMA chunk reduction, RFC 8166 §3.4, needs);</li>
 *   <li>{@link dev.rpcrdma.oncrpc.message}: protocol constants as value classes, call/reply headers, inbound and
 *       outbound messages, and {@code RpcMessageCodec}: plain encode/decode functions any transport calls;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.server}: program registry and the dispatcher (RFC 5531 §9 answers);</li>
 *   <li>{@link dev.rpcrdma.oncrpc.client}: xids, pending calls, timeouts;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.tcp}: RFC 5531 §11 record marking and the stream pipelines (TCP on NIO or
 *       epoll, AF_UNIX); an RPC-over-RDMA transport replaces only this package's handlers;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.rpcbind}: rpcbind/portmapper client (RFC 1833) for registration;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.program}: typed programs declared once, served (blocking procedures on an
 *       executor) and called over any transport, advertised with rpcbind;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.metrics}: per-server, per-client and per-connection metrics (HdrHistogram
 *       latencies, errors by kind, bytes), readable in code and as JMX MBeans;</li>
 *   <li>{@link dev.rpcrdma.oncrpc.gss}: RPCSEC_GSS (RFC 2203) with Kerberos V5, server and client, through the
 *       dispatcher's {@code RpcAuthenticator} and the client's {@code CallOptions.withSecurity} hooks.</li>
 * </ul>
 * The dispatcher and the client handler see only {@code InboundRpcMessage} / {@code OutboundRpcMessage}, so user
 * procedures never know which transport carries them.
 *
 * <h2>For transport implementers (RPC-over-RDMA)</h2>
 * <ul>
 *   <li>Inbound: reassemble the inline stream (reduced: DDP items' length words only) and collect one placement
 *       slot per returned Write chunk, in order: the chunk's data, or an empty buffer for a chunk returned empty or
 *       unused (its item is then inline); call {@code RpcMessageCodec.decode(inline, placed)}
 *       (it takes ownership) and fire the {@code InboundRpcMessage} up the pipeline; an {@code XdrException} means
 *       log, count ({@link dev.rpcrdma.oncrpc.RpcStats#recordMalformedMessage()}) and drop. Procedures and reply
 *       decoders read DDP items with {@code XdrReader.readDdpOpaque(max)}, or with the plain opaque reads, which
 *       take a placed item of the declared length too.</li>
 *   <li>Outbound: intercept {@code OutboundRpcMessage} in {@code write}; {@code RpcMessageCodec.encode(alloc, msg)}
 *       gives an {@code XdrPayload} whose {@code ddpItems()} carry the RFC 8166 §3.5.3 XDR positions (Read chunks
 *       of a call, Write chunks of a reply) and whose {@code writeReduced}/{@code writeInline} produce the
 *       RDMA_MSG body or a Reply/Position-zero chunk. Release the message and the payload only after the
 *       memory is no longer exposed to the peer.</li>
 *   <li>A call's {@code RpcCall.replyDdpItems()} (one size per DDP-eligible result item, 0 = wanted inline) and
 *       {@code maxReplySize()} are local hints for provisioning Write chunks and a Reply chunk.</li>
 *   <li>A call the transport knows has failed for good (e.g. RDMA_ERROR) is failed with a typed exception by
 *       firing {@code RpcCallFailedEvent(xid, cause)} up the pipeline: the client handler completes that call's
 *       future with the cause itself. That is the only signal of such a failure: the write promise of an
 *       {@code OutboundRpcMessage} completes when the transport has written it, as any Netty write does, never
 *       at the reply.</li>
 * </ul>
 */
package dev.rpcrdma.oncrpc;
