package dev.rpcrdma.channel.verbs;

/**
 * The libibverbs enum values only the native bindings use, named exactly as in {@code infiniband/verbs.h} (checked
 * by {@code StructLayoutsTest}). Values the transport shares with the software fabric (access flags, work-request
 * and completion opcodes, send and completion flags, completion status, QP states) live once, in the fabric SPI.
 */
public final class IbvConstants {
    private IbvConstants() {
    }

    // enum ibv_transport_type
    public static final int IBV_TRANSPORT_IB = 0;
    public static final int IBV_TRANSPORT_IWARP = 1;

    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UC = 3;
    public static final int IBV_QPT_UD = 4;

    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;

    // enum ibv_mw_type
    public static final int IBV_MW_TYPE_1 = 1;
    public static final int IBV_MW_TYPE_2 = 2;

    // enum ibv_device_cap_flags (the ones the transport may check)
    public static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;
    public static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
}
