package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;

/**
 * The file attributes of RFC 5661 §5 this server supports: bitmap helpers, the {@code fattr4} encoding of GETATTR
 * and READDIR (attributes in bit order, §5.6, §5.7, §5.8) and the decoding of settable attributes for SETATTR,
 * CREATE and OPEN. Stateless; safe from any thread.
 */
final class Attributes {
    private Attributes() {
    }

    // Attribute numbers, RFC 5661 §5.6-§5.8.
    static final int SUPPORTED_ATTRS = 0;
    static final int TYPE = 1;
    static final int FH_EXPIRE_TYPE = 2;
    static final int CHANGE = 3;
    static final int SIZE = 4;
    static final int LINK_SUPPORT = 5;
    static final int SYMLINK_SUPPORT = 6;
    static final int NAMED_ATTR = 7;
    static final int FSID = 8;
    static final int UNIQUE_HANDLES = 9;
    static final int LEASE_TIME = 10;
    static final int RDATTR_ERROR = 11;
    static final int ACLSUPPORT = 13;
    static final int CANSETTIME = 15;
    static final int CASE_INSENSITIVE = 16;
    static final int CASE_PRESERVING = 17;
    static final int CHOWN_RESTRICTED = 18;
    static final int FILEHANDLE = 19;
    static final int FILEID = 20;
    static final int FILES_AVAIL = 21;
    static final int FILES_FREE = 22;
    static final int FILES_TOTAL = 23;
    static final int HOMOGENEOUS = 26;
    static final int MAXFILESIZE = 27;
    static final int MAXLINK = 28;
    static final int MAXNAME = 29;
    static final int MAXREAD = 30;
    static final int MAXWRITE = 31;
    static final int MODE = 33;
    static final int NO_TRUNC = 34;
    static final int NUMLINKS = 35;
    static final int OWNER = 36;
    static final int OWNER_GROUP = 37;
    static final int RAWDEV = 41;
    static final int SPACE_AVAIL = 42;
    static final int SPACE_FREE = 43;
    static final int SPACE_TOTAL = 44;
    static final int SPACE_USED = 45;
    static final int TIME_ACCESS = 47;
    static final int TIME_ACCESS_SET = 48;
    static final int TIME_DELTA = 51;
    static final int TIME_METADATA = 52;
    static final int TIME_MODIFY = 53;
    static final int TIME_MODIFY_SET = 54;
    static final int MOUNTED_ON_FILEID = 55;
    static final int SUPPATTR_EXCLCREAT = 75;

    /** Largest bitmap accepted (words). */
    static final int MAX_BITMAP_WORDS = 8;

    static final int[] SUPPORTED = bitmap(SUPPORTED_ATTRS, TYPE, FH_EXPIRE_TYPE, CHANGE, SIZE, LINK_SUPPORT,
            SYMLINK_SUPPORT, NAMED_ATTR, FSID, UNIQUE_HANDLES, LEASE_TIME, RDATTR_ERROR, ACLSUPPORT, CANSETTIME,
            CASE_INSENSITIVE, CASE_PRESERVING, CHOWN_RESTRICTED, FILEHANDLE, FILEID, FILES_AVAIL, FILES_FREE,
            FILES_TOTAL, HOMOGENEOUS, MAXFILESIZE, MAXLINK, MAXNAME, MAXREAD, MAXWRITE, MODE, NO_TRUNC, NUMLINKS,
            OWNER, OWNER_GROUP, RAWDEV, SPACE_AVAIL, SPACE_FREE, SPACE_TOTAL, SPACE_USED, TIME_ACCESS,
            TIME_ACCESS_SET, TIME_DELTA, TIME_METADATA, TIME_MODIFY, TIME_MODIFY_SET, MOUNTED_ON_FILEID,
            SUPPATTR_EXCLCREAT);
    /** What SETATTR accepts. */
    static final int[] SETTABLE = bitmap(SIZE, MODE, OWNER, OWNER_GROUP, TIME_ACCESS_SET, TIME_MODIFY_SET);
    /** What an EXCLUSIVE4_1 create may set along with the verifier (RFC 5661 §5.8.1.14). */
    static final int[] EXCLCREAT = bitmap(SIZE, MODE, OWNER, OWNER_GROUP, TIME_ACCESS_SET, TIME_MODIFY_SET);

    static int[] bitmap(int... bits) {
        int words = 0;
        for (int b : bits) {
            words = Math.max(words, b / 32 + 1);
        }
        int[] map = new int[words];
        for (int b : bits) {
            map[b / 32] |= 1 << (b % 32);
        }
        return map;
    }

    static boolean isSet(int[] map, int bit) {
        int word = bit / 32;
        return word < map.length && (map[word] & (1 << (bit % 32))) != 0;
    }

    static int[] and(int[] a, int[] b) {
        int[] r = new int[Math.min(a.length, b.length)];
        for (int i = 0; i < r.length; i++) {
            r[i] = a[i] & b[i];
        }
        return r;
    }

    static int[] readBitmap(XdrReader in) throws XdrException {
        int n = in.readArrayLength(MAX_BITMAP_WORDS, 4);
        int[] map = new int[n];
        for (int i = 0; i < n; i++) {
            map[i] = in.readInt();
        }
        return map;
    }

    static void writeBitmap(XdrWriter out, int[] map) {
        int n = map.length;
        while (n > 0 && map[n - 1] == 0) {
            n--;
        }
        out.writeInt(n);
        for (int i = 0; i < n; i++) {
            out.writeInt(map[i]);
        }
    }

    static void writeTime(XdrWriter out, long nanos) {
        out.writeHyper(Math.floorDiv(nanos, 1_000_000_000L));
        out.writeInt((int) Math.floorMod(nanos, 1_000_000_000L));
    }

    /** A numeric owner string ("1000", or "1000@domain"); anything else maps to nobody (65534). */
    static int parseId(String owner) {
        int at = owner.indexOf('@');
        String id = at >= 0 ? owner.substring(0, at) : owner;
        try {
            return Integer.parseInt(id);
        } catch (NumberFormatException e) {
            return "root".equals(id) ? 0 : 65534;
        }
    }

    /** What the encoder needs besides the object's attributes. */
    record Context(byte[] fileHandle, int leaseSeconds, long[] space, int rdattrError) {
    }

    /**
     * Writes {@code fattr4}: the bitmap of the requested attributes this server supports for this object (write-
     * only ones left out), then their values in bit order as an opaque.
     */
    static void encode(XdrWriter out, int[] requested, FileAttrs a, Context c) {
        int[] mask = and(requested, SUPPORTED);
        if (isSet(mask, TIME_ACCESS_SET)) {
            mask[TIME_ACCESS_SET / 32] &= ~(1 << (TIME_ACCESS_SET % 32));
        }
        if (isSet(mask, TIME_MODIFY_SET)) {
            mask[TIME_MODIFY_SET / 32] &= ~(1 << (TIME_MODIFY_SET % 32));
        }
        if (c.fileHandle() == null && isSet(mask, FILEHANDLE)) {
            mask[0] &= ~(1 << FILEHANDLE);
        }
        writeBitmap(out, mask);
        ByteBuf buf = out.buffer();
        int lengthAt = buf.writerIndex();
        out.writeInt(0);
        int start = buf.writerIndex();
        for (int bit = 0; bit < mask.length * 32; bit++) {
            if (isSet(mask, bit)) {
                encodeOne(out, bit, a, c);
            }
        }
        buf.setInt(lengthAt, buf.writerIndex() - start);
    }

    private static void encodeOne(XdrWriter out, int bit, FileAttrs a, Context c) {
        switch (bit) {
            case SUPPORTED_ATTRS -> writeBitmap(out, SUPPORTED);
            case TYPE -> out.writeInt(a.type);
            case FH_EXPIRE_TYPE -> out.writeInt(0); // FH4_PERSISTENT
            case CHANGE -> out.writeHyper(a.change);
            case SIZE -> out.writeHyper(a.size);
            case LINK_SUPPORT, SYMLINK_SUPPORT, NAMED_ATTR, CASE_INSENSITIVE -> out.writeBool(false);
            case FSID -> out.writeHyper(0x4e4653L).writeHyper(1);
            case UNIQUE_HANDLES, CANSETTIME, CASE_PRESERVING, CHOWN_RESTRICTED, HOMOGENEOUS, NO_TRUNC ->
                    out.writeBool(true);
            case LEASE_TIME -> out.writeInt(c.leaseSeconds());
            case RDATTR_ERROR -> out.writeInt(c.rdattrError());
            case ACLSUPPORT -> out.writeInt(0);
            case FILEHANDLE -> out.writeOpaque(c.fileHandle());
            case FILEID, MOUNTED_ON_FILEID -> out.writeHyper(a.fileid);
            case FILES_AVAIL, FILES_FREE -> out.writeHyper(1L << 30);
            case FILES_TOTAL -> out.writeHyper(1L << 31);
            case MAXFILESIZE -> out.writeHyper(MemoryFileSystem.MAX_FILE);
            case MAXLINK -> out.writeInt(255);
            case MAXNAME -> out.writeInt(Nfs4.MAX_NAME);
            case MAXREAD, MAXWRITE -> out.writeHyper(Nfs4.MAX_IO);
            case MODE -> out.writeInt(a.mode & 07777);
            case NUMLINKS -> out.writeInt(a.nlink);
            case OWNER -> out.writeString(Integer.toString(a.uid));
            case OWNER_GROUP -> out.writeString(Integer.toString(a.gid));
            case RAWDEV -> out.writeInt(0).writeInt(0);
            case SPACE_AVAIL, SPACE_FREE -> out.writeHyper(c.space()[1]);
            case SPACE_TOTAL -> out.writeHyper(c.space()[0]);
            case SPACE_USED -> out.writeHyper(a.spaceUsed);
            case TIME_ACCESS -> writeTime(out, a.atime);
            case TIME_DELTA -> writeTime(out, 1000);
            case TIME_METADATA -> writeTime(out, a.ctime);
            case TIME_MODIFY -> writeTime(out, a.mtime);
            case SUPPATTR_EXCLCREAT -> writeBitmap(out, EXCLCREAT);
            default -> throw new IllegalStateException("unsupported attribute " + bit + " in the mask");
        }
    }

    /**
     * Reads {@code fattr4} for setting: only {@link #SETTABLE} attributes; ATTRNOTSUPP for an unsupported one,
     * INVAL for a supported read-only one (RFC 5661 §18.30.4), BADXDR when the values do not decode.
     */
    static SetAttrs decodeSet(XdrReader in) throws XdrException, Nfs4Exception {
        int[] mask = readBitmap(in);
        ByteBuf values = in.readOpaqueSlice(Nfs4.MAX_IO);
        try {
            for (int bit = 0; bit < mask.length * 32; bit++) {
                if (isSet(mask, bit) && !isSet(SETTABLE, bit)) {
                    throw new Nfs4Exception(isSet(SUPPORTED, bit) ? Nfs4.NFS4ERR_INVAL : Nfs4.NFS4ERR_ATTRNOTSUPP);
                }
            }
            XdrReader r = new XdrReader(values);
            SetAttrs s = new SetAttrs();
            s.mask = mask;
            if (isSet(mask, SIZE)) {
                s.size = r.readHyper();
                if (s.size < 0) {
                    throw new Nfs4Exception(Nfs4.NFS4ERR_FBIG);
                }
            }
            if (isSet(mask, MODE)) {
                s.mode = r.readInt() & 07777;
            }
            if (isSet(mask, OWNER)) {
                s.owner = r.readString(Nfs4.OPAQUE_LIMIT);
            }
            if (isSet(mask, OWNER_GROUP)) {
                s.ownerGroup = r.readString(Nfs4.OPAQUE_LIMIT);
            }
            if (isSet(mask, TIME_ACCESS_SET)) {
                s.atime = readSetTime(r);
            }
            if (isSet(mask, TIME_MODIFY_SET)) {
                s.mtime = readSetTime(r);
            }
            return s;
        } finally {
            values.release();
        }
    }

    private static long readSetTime(XdrReader r) throws XdrException, Nfs4Exception {
        int how = r.readInt();
        if (how == 0) {
            return SetAttrs.SERVER_TIME;
        }
        if (how != 1) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADXDR);
        }
        long seconds = r.readHyper();
        long nanos = r.readUnsignedInt();
        if (nanos >= 1_000_000_000L) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        return seconds * 1_000_000_000L + nanos;
    }
}
