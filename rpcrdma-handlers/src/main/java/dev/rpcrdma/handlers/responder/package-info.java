/**
 * The responder (server) side: {@link dev.rpcrdma.handlers.responder.RpcRdmaResponder} (header checks and
 * RDMA_ERROR answers, RFC 8166 §4.5; credits; the call table) with one {@code ResponderCall} per call (its Read
 * chunk pull into registered pool memory, §3.4.5), {@code CallReassembly} (XDR reassembly), {@code ReplyPlacement}
 * (Write chunk and Reply chunk filling, §3.4.6, §3.5.3; Send With Invalidate, RFC 8797 §4.1), {@code ReplySender}
 * (the reply's Send) and {@code ChunkMover}, the one place chunk data moves by RDMA Read and Write (as Linux's
 * svc_rdma_rw.c serves both its receive and its send path).
 *
 * <h2>Inbound</h2>
 * Each {@code RdmaReceive} is a transport header (RFC 8166 §4.1) checked by {@code RpcRdmaHeaderDecoder}; shorter
 * than 28 bytes it is silently discarded (logged, counted); a bad version is answered with RDMA_ERROR ERR_VERS 1..1
 * and any other header or chunk error with ERR_CHUNK (RFC 8166 §4.5). A call beyond every credit grant closes the
 * connection ({@code ResponderCredits}). An admitted call becomes a {@code ResponderCall} in the call table until its
 * reply. Its Read chunks are pulled with RDMA Read into memory registered for local write only, reassembled with
 * their XDR pads ({@code CallReassembly}) and the stream decoded by {@code RpcMessageCodec}; its XID must equal the
 * header's.
 *
 * <h2>Outbound</h2>
 * A reply is placed per {@code ReplyPlacement}: DDP-eligible result item i goes into the call's Write chunk i with
 * RDMA Write (RFC 8166 §4.3.2.1); an item whose chunk is empty (§4.3.2.3) or too small stays inline and that chunk
 * comes back empty or with zero lengths, as does a chunk with no item (§3.4.6, §4.3.2.2). The rest is sent inline
 * (RDMA_MSG) when it fits the server-to-client inline threshold, else written into the Reply chunk (RDMA_NOMSG, Long
 * Reply); with no or too small a Reply chunk the call is answered with ERR_CHUNK (§4.5.3), logged, and the reply's
 * write promise fails. When both peers set the R bit and every segment of the call names one handle, the reply is a
 * Send With Invalidate of that handle (RFC 8797 §4.1). The reply's write promise is its Send's.
 *
 * <h2>Per call</h2>
 * Nothing is allocated in steady state: call objects come from a free list bounded by the largest grant and go back
 * once their reply was sent (and its Send completed, when the reply had local memory); a plain RDMA_MSG call is read
 * in place without a header object. The responder counts its connection's use and calls in progress itself
 * ({@code RpcConnectionUse}), so the server's idle timeout needs no pipeline hop per message. Each call it hands up
 * names it as the call's {@code RpcReplyEntry}: when the dispatcher's context is right after the responder's (no
 * handler between them, read from Netty's link between contexts), on the loop and with leak detection off, a reply
 * with the connection's void promise goes straight into the responder's write and flush, and the built-in NULL
 * procedure's reply is written into the Send without its message objects; once the dispatcher has replied that way,
 * calls go straight into its {@code channelRead} while its context is still the next one. In byte framing the
 * handler above (the oncrpc4j bridge's) may write its whole-message replies the same way, with its own promise,
 * through {@code ByteFramingEntry}, and then gets the calls straight as well. Anything else goes through the
 * pipeline.
 */
package dev.rpcrdma.handlers.responder;
