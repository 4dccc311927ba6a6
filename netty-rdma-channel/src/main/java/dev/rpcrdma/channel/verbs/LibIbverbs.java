package dev.rpcrdma.channel.verbs;

import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/**
 * Internal (public only because jnr-ffi generates its implementation in another class loader). The exported
 * functions of {@code libibverbs.so.1} that the facade {@link Verbs} uses. Pointers are passed as
 * {@code long} addresses. Errno is saved by jnr-ffi for every call (none of these is on the data path); the data
 * path ({@code ibv_post_send}, {@code ibv_poll_cq}...) is static inline in verbs.h and goes through
 * {@link NativeCalls} instead.
 */
public interface LibIbverbs {
    String SONAME = "libibverbs.so.1";

    long ibv_get_device_list(@Out int[] numDevices);

    void ibv_free_device_list(long list);

    String ibv_get_device_name(long device);

    long ibv_open_device(long device);

    int ibv_close_device(long context);

    int ibv_query_device(long context, @Out byte[] deviceAttr);

    long ibv_alloc_pd(long context);

    int ibv_dealloc_pd(long pd);

    long ibv_reg_mr(long pd, long addr, long length, int access);

    int ibv_dereg_mr(long mr);

    int ibv_modify_qp(long qp, @In byte[] attr, int attrMask);

    int ibv_query_qp(long qp, @Out byte[] attr, int attrMask, @Out byte[] initAttr);

    long ibv_create_comp_channel(long context);

    int ibv_destroy_comp_channel(long channel);

    long ibv_create_cq(long context, int cqe, long cqContext, long channel, int compVector);

    int ibv_destroy_cq(long cq);

    long ibv_create_srq(long pd, byte[] srqInitAttr);

    int ibv_destroy_srq(long srq);

    int ibv_get_cq_event(long channel, @Out long[] cq, @Out long[] cqContext);

    void ibv_ack_cq_events(long cq, int nevents);

    String ibv_wc_status_str(int status);
}
