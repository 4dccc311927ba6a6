package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.WcFlags;

/**
 * The fields of {@code struct ibv_device_attr} ({@link Verbs#queryDevice(long)}) that matter to the transport, and
 * the device's transport type ({@code ibv_device.transport_type}): queue and SGE limits (per work request and per RDMA
 * Read sink), RDMA READ depths ({@code max_qp_rd_atom} = responder resources, {@code
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
        int maxSgeRd,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxMw,
        int physPortCnt,
        int transportType) {

    /** rxe reports this vendor id ({@code RXE_VENDOR_ID}). */
    static final int SOFT_ROCE_VENDOR_ID = 0xFFFFFF;

    /** siw reports this vendor id ({@code SIW_VENDOR_ID}, "bmt" in ASCII: siw.h). */
    static final int SOFT_IWARP_VENDOR_ID = 0x626d74;

    /** Whether this is Soft-iWARP (siw), whose quirks the bindings must work around. */
    public boolean isSoftIwarp() {
        return vendorId == SOFT_IWARP_VENDOR_ID && isIwarp();
    }

    /** Whether this is Soft-RoCE (rxe), whose quirks the bindings must work around. */
    public boolean isSoftRoce() {
        return vendorId == SOFT_ROCE_VENDOR_ID && vendorPartId == 0;
    }

    /**
     * The {@code wc_flags} bit that marks a receive completed by a Send With Invalidate on this device:
     * {@code IBV_WC_WITH_INV} ({@code 1 << 3}), except on rxe, which copies the KERNEL's
     * {@code IB_WC_WITH_INVALIDATE} ({@code 1 << 2}) into the user-space completion (Linux rxe_resp.c do_complete;
     * rdma-core's rxe provider copies the completion verbatim). Pass it to
     * {@link WorkCompletions#WorkCompletions(int, int)}.
     */
    public int wcWithInvalidateFlag() {
        return isSoftRoce() ? Verbs.SOFT_ROCE_WC_WITH_INV : WcFlags.WITH_INV;
    }

    /** Whether the device's transport is iWARP ({@code ibv_device.transport_type}), e.g. Soft-iWARP (siw). */
    public boolean isIwarp() {
        return transportType == IbvConstants.IBV_TRANSPORT_IWARP;
    }

    /** Whether the device supports type-2 memory windows (bind by work request, remote invalidation). */
    public boolean supportsType2MemoryWindows() {
        return maxMw > 0 && (deviceCapFlags & (IbvConstants.IBV_DEVICE_MEM_WINDOW_TYPE_2A
                | IbvConstants.IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
    }
}
