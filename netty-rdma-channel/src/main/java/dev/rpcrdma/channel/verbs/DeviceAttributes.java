package dev.rpcrdma.channel.verbs;

/**
 * The fields of {@code struct ibv_device_attr} ({@link Verbs#queryDevice(long)}) that matter to the transport:
 * queue and SGE limits, RDMA READ depths ({@code max_qp_rd_atom} = responder resources, {@code
 * max_qp_init_rd_atom} = initiator depth) and memory window support.
 */
public record DeviceAttributes(
        String fwVer,
        long nodeGuid,
        long maxMrSize,
        int vendorId,
        int vendorPartId,
        int maxQp,
        int maxQpWr,
        int deviceCapFlags,
        int maxSge,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxMw,
        int physPortCnt) {

    /** Whether the device supports type-2 memory windows (bind by work request, remote invalidation). */
    public boolean supportsType2MemoryWindows() {
        return maxMw > 0 && (deviceCapFlags & (IbvConstants.IBV_DEVICE_MEM_WINDOW_TYPE_2A
                | IbvConstants.IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
    }
}
