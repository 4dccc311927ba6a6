package dev.rpcrdma.channel.fabric;

/**
 * A copied and acknowledged {@code struct rdma_cm_event}. {@link #privateData()} is at most 196 bytes (bounded by the
 * wire format, never by a peer-supplied length).
 */
public final class CmEvent {
    private final int type;
    private final int status;
    private final CmId id;
    private final CmId listenId;
    private final byte[] privateData;

    public CmEvent(int type, int status, CmId id, CmId listenId, byte[] privateData) {
        this.type = type;
        this.status = status;
        this.id = id;
        this.listenId = listenId;
        this.privateData = privateData == null ? new byte[0] : privateData;
    }

    /** A {@link CmEventType} value. */
    public int type() {
        return type;
    }

    /** {@code event->status}: 0, a negative errno, or the IB CM reject reason for {@link CmEventType#REJECTED}. */
    public int status() {
        return status;
    }

    /** The id the event is about (for {@link CmEventType#CONNECT_REQUEST}: the new id). */
    public CmId id() {
        return id;
    }

    /** For {@link CmEventType#CONNECT_REQUEST}: the listening id. */
    public CmId listenId() {
        return listenId;
    }

    /** The peer's private data (a copy owned by the receiver). */
    public byte[] privateData() {
        return privateData;
    }

    @Override
    public String toString() {
        return "CmEvent(" + CmEventType.name(type) + ", status=" + status + ", privateData=" + privateData.length + "B)";
    }
}
