package dev.rpcrdma.channel.fabric;

import java.io.IOException;
import java.net.InetSocketAddress;

/** An RDMA-CM identifier ({@code struct rdma_cm_id}), TCP port space, reliable connected. */
public interface CmId extends AutoCloseable {

    /** The user context given at creation or by {@link #context(Object)}. */
    Object context();

    void context(Object context);

    /** {@code rdma_bind_addr}. */
    void bind(InetSocketAddress address) throws IOException;

    /** {@code rdma_listen}. */
    void listen(int backlog) throws IOException;

    /** {@code rdma_resolve_addr}; completes with {@link CmEventType#ADDR_RESOLVED} or an error event. */
    void resolveAddress(InetSocketAddress source, InetSocketAddress destination, int timeoutMillis)
            throws IOException;

    /** {@code rdma_resolve_route}; completes with {@link CmEventType#ROUTE_RESOLVED} or an error event. */
    void resolveRoute(int timeoutMillis) throws IOException;

    /** The device this id is bound to ({@code id->verbs}); null before address resolution or a request. */
    VerbsDevice device();

    /** {@code rdma_create_qp}: an RC queue pair on this id. */
    QueuePair createQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                              QpCapabilities capabilities) throws IOException;

    /**
     * {@code rdma_create_qp} with {@code qp_init_attr.srq}: an RC queue pair whose Sends land in receives of
     * {@code srq} (of the same protection domain); {@code capabilities.maxRecvWr} is ignored and
     * {@link QueuePair#postReceive} fails. With a null {@code srq}, as without.
     */
    QueuePair createQueuePair(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq,
                              SharedReceiveQueue srq, QpCapabilities capabilities) throws IOException;

    /** The queue pair created on this id, or null. */
    QueuePair queuePair();

    /** {@code rdma_connect}; the private data is limited to {@link ConnectionParameters#MAX_CONNECT_PRIVATE_DATA}. */
    void connect(ConnectionParameters parameters) throws IOException;

    /** {@code rdma_accept}; private data limited to {@link ConnectionParameters#MAX_ACCEPT_PRIVATE_DATA}. */
    void accept(ConnectionParameters parameters) throws IOException;

    /** {@code rdma_reject}; private data limited to {@link ConnectionParameters#MAX_REJECT_PRIVATE_DATA}. */
    void reject(byte[] privateData) throws IOException;

    /** {@code rdma_disconnect}: the queue pair goes to error; both sides get {@link CmEventType#DISCONNECTED}. */
    void disconnect() throws IOException;

    /** {@code rdma_migrate_id}: later events of this id arrive on {@code channel}. */
    void migrate(CmEventChannel channel) throws IOException;

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** {@code rdma_destroy_id}. */
    @Override
    void close() throws IOException;
}
