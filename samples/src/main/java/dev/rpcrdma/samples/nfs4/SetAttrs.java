package dev.rpcrdma.samples.nfs4;

/**
 * The attributes a SETATTR, CREATE or OPEN(create) asks to set (RFC 5661 §5.6, §18.30): null or negative fields
 * are left alone; {@link #SERVER_TIME} asks for the server's clock (settime4 SET_TO_SERVER_TIME4). Built by
 * {@link Attributes#decodeSet}, confined to the compound that decoded it.
 */
final class SetAttrs {
    /** A time field meaning "now, by the server's clock". */
    static final long SERVER_TIME = Long.MIN_VALUE + 1;
    /** A time field meaning "unchanged". */
    static final long UNSET = Long.MIN_VALUE;

    long size = -1;
    int mode = -1;
    String owner;
    String ownerGroup;
    long atime = UNSET;
    long mtime = UNSET;
    /** The attribute bitmap that was decoded (what {@code attrsset} reports back when all were applied). */
    int[] mask = new int[0];

    boolean isEmpty() {
        return size < 0 && mode < 0 && owner == null && ownerGroup == null && atime == UNSET && mtime == UNSET;
    }
}
