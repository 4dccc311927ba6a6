package dev.rpcrdma.channel.verbs;

import java.util.Arrays;

/**
 * One {@code struct rdma_cm_event} as {@link RdmaCm#getCmEvent} copies it, with raw ids, for the binding tests.
 *
 * <p>{@link #privateData()} is the peer's private data as librdmacm reports it: on IB/RoCE the full CM message
 * field (56 bytes for CONNECT_REQUEST, 196 for ESTABLISHED on the active side, 148 for REJECTED), zero-padded
 * after what the peer sent. Empty when the event has none.
 */
final class CmEventRecord {
    private final int type;
    private final int status;
    private final long id;
    private final long listenId;
    private final byte[] privateData;
    private final int responderResources;
    private final int initiatorDepth;

    CmEventRecord(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
            int initiatorDepth) {
        this.type = type;
        this.status = status;
        this.id = id;
        this.listenId = listenId;
        this.privateData = privateData;
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
    }

    /** {@code RDMA_CM_EVENT_*}. */
    int type() {
        return type;
    }

    /** {@code status}: 0, a negative errno, or for REJECTED the CM reject reason. */
    int status() {
        return status;
    }

    /**
     * The {@code rdma_cm_id} the event is about. For CONNECT_REQUEST it is a NEW id (owned by the caller: accept or
     * reject it, then {@link RdmaCm#destroyId(long)} it eventually), whose listener is {@link #listenId()}.
     */
    long id() {
        return id;
    }

    /** The listening id for CONNECT_REQUEST (and events on ids derived from it), else 0. */
    long listenId() {
        return listenId;
    }

    /** A copy of the private data (never null). */
    byte[] privateData() {
        return privateData.clone();
    }

    /** Peer's {@code responder_resources} (CONNECT_REQUEST / ESTABLISHED). */
    int responderResources() {
        return responderResources;
    }

    /** Peer's {@code initiator_depth} (CONNECT_REQUEST / ESTABLISHED). */
    int initiatorDepth() {
        return initiatorDepth;
    }

    /** Name of the event type, e.g. {@code "RDMA_CM_EVENT_ESTABLISHED"}. */
    String typeName() {
        return RdmaCm.eventName(type);
    }

    @Override
    public String toString() {
        return "CmEventRecord{" + typeName() + ", status " + status + ", id 0x" + Long.toHexString(id)
                + (listenId != 0 ? ", listenId 0x" + Long.toHexString(listenId) : "")
                + ", privateData " + privateData.length + " bytes"
                + (privateData.length > 0 ? " " + Arrays.toString(Arrays.copyOf(privateData, Math.min(8, privateData.length))) : "")
                + '}';
    }
}
