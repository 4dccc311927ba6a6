package dev.rpcrdma.handlers.negotiation;

import static io.netty.util.internal.ObjectUtil.checkInRange;
import static java.util.Objects.requireNonNull;

/**
 * The RPC-over-RDMA Version 1 CM Private Data message (RFC 8797 §4): format identifier {@code 0xf6ab0e18}, format
 * version 1, the R bit (remote invalidation supported) and the encoded send and receive inline sizes.
 *
 * @param remoteInvalidation the R bit: this peer supports remote invalidation (RFC 8797 §4.1)
 * @param sendSize           the most bytes this peer will transmit in one RDMA Send, 1 KiB..256 KiB in 1 KiB steps
 * @param receiveSize        the most bytes this peer can receive in one RDMA Receive, 1 KiB..256 KiB in 1 KiB steps
 */
public record RpcRdmaPrivateData(boolean remoteInvalidation, int sendSize, int receiveSize) {

    /** RFC 8797 §4 Format Identifier, in network byte order on the wire. */
    public static final int FORMAT_IDENTIFIER = 0xf6ab0e18;
    /** RFC 8797 §4 format version. */
    public static final int FORMAT_VERSION = 1;
    /** Encoded length of a version 1 message. */
    public static final int LENGTH = 8;
    /** The smallest inline size, also the RFC 8166 §3.3.3 default. */
    public static final int MIN_INLINE_SIZE = 1024;
    /** The largest inline size the one-octet encoding can express (RFC 8797 §4.2). */
    public static final int MAX_INLINE_SIZE = 256 * 1024;
    /** What a peer that sent no recognisable private data is taken to have said (RFC 8797 §5.1). */
    public static final RpcRdmaPrivateData DEFAULTS = new RpcRdmaPrivateData(false, MIN_INLINE_SIZE, MIN_INLINE_SIZE);

    /** The R bit inside the flags octet (bit 15 of the second word; RFC 8797 §4). */
    private static final int R_BIT = 0x01;

    public RpcRdmaPrivateData {
        checkInRange(sendSize, MIN_INLINE_SIZE, MAX_INLINE_SIZE, "sendSize");
        checkInRange(receiveSize, MIN_INLINE_SIZE, MAX_INLINE_SIZE, "receiveSize");
        if ((sendSize & 1023) != 0 || (receiveSize & 1023) != 0) {
            throw new IllegalArgumentException("inline sizes are multiples of 1024 (RFC 8797 §4.2): send "
                    + sendSize + ", receive " + receiveSize);
        }
    }

    /**
     * Private data advertising the given buffer sizes, rounded down to the 1 KiB steps RFC 8797 §4.2 can encode
     * and clamped to 1 KiB..256 KiB.
     */
    public static RpcRdmaPrivateData of(boolean remoteInvalidation, int sendBufferSize, int receiveBufferSize) {
        return new RpcRdmaPrivateData(remoteInvalidation, encodable(sendBufferSize), encodable(receiveBufferSize));
    }

    private static int encodable(int size) {
        return Math.min(MAX_INLINE_SIZE, Math.max(MIN_INLINE_SIZE, size & ~1023));
    }

    /** The 8-byte wire form (RFC 8797 §4). */
    public byte[] encode() {
        byte[] out = new byte[LENGTH];
        out[0] = (byte) (FORMAT_IDENTIFIER >>> 24);
        out[1] = (byte) (FORMAT_IDENTIFIER >>> 16);
        out[2] = (byte) (FORMAT_IDENTIFIER >>> 8);
        out[3] = (byte) FORMAT_IDENTIFIER;
        out[4] = (byte) FORMAT_VERSION;
        out[5] = (byte) (remoteInvalidation ? R_BIT : 0); // reserved bits are zero
        out[6] = (byte) (sendSize / 1024 - 1);
        out[7] = (byte) (receiveSize / 1024 - 1);
        return out;
    }

    /**
     * Finds and parses RPC-over-RDMA private data in what the peer sent (RFC 8797 §5.2): the buffer is searched for
     * the Format Identifier at any offset; a candidate whose version is not 1 or whose content would overrun the
     * buffer is not accepted. Returns {@code null} when none is found — callers then use {@link #DEFAULTS}.
     */
    public static RpcRdmaPrivateData find(byte[] privateData) {
        requireNonNull(privateData, "privateData");
        for (int i = 0; i + LENGTH <= privateData.length; i++) {
            if (readInt(privateData, i) == FORMAT_IDENTIFIER && (privateData[i + 4] & 0xff) == FORMAT_VERSION) {
                boolean r = (privateData[i + 5] & R_BIT) != 0; // other flag bits are reserved: ignored
                int send = ((privateData[i + 6] & 0xff) + 1) * 1024;
                int receive = ((privateData[i + 7] & 0xff) + 1) * 1024;
                return new RpcRdmaPrivateData(r, send, receive);
            }
        }
        return null;
    }

    /** {@link #find} or, when nothing recognisable was sent, {@link #DEFAULTS} (RFC 8797 §5.1). */
    public static RpcRdmaPrivateData parseOrDefaults(byte[] privateData) {
        RpcRdmaPrivateData found = privateData == null ? null : find(privateData);
        return found == null ? DEFAULTS : found;
    }

    private static int readInt(byte[] b, int i) {
        return (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | b[i + 3] & 0xff;
    }
}
