package dev.rpcrdma.channel.verbs;

import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/**
 * Internal (public only for jnr-ffi). The functions of {@code librdmacm.so.1} that the facade {@link RdmaCm} uses. Every call returns -1 (or NULL) and
 * sets errno on failure, so errno saving stays on (no {@code @IgnoreError}). Socket addresses are passed as
 * {@code byte[]} holding a {@code sockaddr_in}/{@code sockaddr_in6} (librdmacm copies them).
 */
public interface LibRdmacm {
    String SONAME = "librdmacm.so.1";

    long rdma_create_event_channel();

    void rdma_destroy_event_channel(long channel);

    int rdma_create_id(long channel, @Out long[] id, long context, int ps);

    int rdma_destroy_id(long id);

    int rdma_bind_addr(long id, @In byte[] addr);

    int rdma_listen(long id, int backlog);

    int rdma_resolve_addr(long id, @In byte[] srcAddr, @In byte[] dstAddr, int timeoutMs);

    int rdma_resolve_route(long id, int timeoutMs);

    int rdma_create_qp(long id, long pd, byte[] qpInitAttr);

    void rdma_destroy_qp(long id);

    int rdma_connect(long id, long connParam);

    int rdma_accept(long id, long connParam);

    int rdma_reject(long id, @In byte[] privateData, byte privateDataLen);

    int rdma_disconnect(long id);

    int rdma_get_cm_event(long channel, @Out long[] event);

    int rdma_ack_cm_event(long event);

    int rdma_migrate_id(long id, long channel);

    String rdma_event_str(int event);
}
