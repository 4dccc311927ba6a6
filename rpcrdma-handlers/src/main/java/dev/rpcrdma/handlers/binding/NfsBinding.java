package dev.rpcrdma.handlers.binding;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.buffer.ByteBuf;

/**
 * RFC 8267's Upper-Layer Binding for NFS (program 100003), located in the bytes of whole RPC messages.
 * <ul>
 *   <li>NFS version 2 and 3 (§4): the data of READ results and WRITE arguments, the path of READLINK results and
 *       of SYMLINK arguments (RFC 1094, RFC 1813 §3.3.5 to §3.3.10).</li>
 *   <li>NFS version 4.x (§6.1): the data of READ results, the link of READLINK results, the data of WRITE
 *       arguments, inside COMPOUND (RFC 5661 §16.2), in operation order, the order in which the results take the
 *       call's Write chunks (§6.4.1). The linkdata of CREATE's NF4LNK arm, DDP-eligible too, is not located: a call
 *       may send any item inline. A COMPOUND is walked one operation at a time: results of
 *       operations whose layout is not known here end the walk, and the reply's items are then
 *       {@link UpperLayerBinding#UNKNOWN} unless none can follow (the responder then uses the Reply chunk).</li>
 * </ul>
 * Every length is checked against the message before it is used (RFC 8166 §3.4.5; bad XDR is an
 * {@link XdrException}). Stateless.
 */
final class NfsBinding implements UpperLayerBinding {
    static final NfsBinding INSTANCE = new NfsBinding();

    static final int NFS_PROGRAM = 100003;
    /** RFC 1813: the largest READ/WRITE this binding accepts as one item (the RPC message bounds it anyway). */
    private static final int MAX_DATA = Integer.MAX_VALUE;
    private static final int NFS3_FHSIZE = 64;
    private static final int NFS2_FHSIZE = 32;
    private static final int NFS4_FHSIZE = 128;
    private static final int MAX_NAME = 1 << 16;
    /** RFC 1813 fattr3: 21 words. */
    private static final int FATTR3 = 84;
    /** RFC 1094 fattr: 17 words. */
    private static final int FATTR2 = 68;

    // RFC 1813 procedures (NFSv2, RFC 1094, in brackets).
    private static final int NFSPROC3_READLINK = 5; // (5)
    private static final int NFSPROC3_READ = 6;     // (6)
    private static final int NFSPROC3_WRITE = 7;    // (8)
    private static final int NFSPROC3_SYMLINK = 10; // (13)
    private static final int NFSPROC2_WRITE = 8;
    private static final int NFSPROC2_SYMLINK = 13;

    // RFC 5661 operation numbers.
    private static final int OP_ACCESS = 3;
    private static final int OP_GETATTR = 9;
    private static final int OP_GETFH = 10;
    private static final int OP_LOOKUP = 15;
    private static final int OP_LOOKUPP = 16;
    private static final int OP_PUTFH = 22;
    private static final int OP_PUTPUBFH = 23;
    private static final int OP_PUTROOTFH = 24;
    private static final int OP_READ = 25;
    private static final int OP_READLINK = 27;
    private static final int OP_RESTOREFH = 31;
    private static final int OP_SAVEFH = 32;
    private static final int OP_WRITE = 38;
    private static final int OP_SEQUENCE = 53;

    private NfsBinding() {
    }

    @Override
    public String name() {
        return "NFS (RFC 8267)";
    }

    @Override
    public int replyItems(int program, int version, int procedure, ByteBuf reply, int[] items) throws XdrException {
        if (program != NFS_PROGRAM) {
            return 0;
        }
        int results = RpcMessageLayout.results(reply);
        if (results < 0) {
            return 0;
        }
        XdrCursor c = new XdrCursor(reply);
        c.skip(results);
        switch (version) {
            case 2:
                return v2Reply(procedure, c, items);
            case 3:
                return v3Reply(procedure, c, items);
            case 4:
                return procedure == 1 ? compoundReply(c, items) : 0;
            default:
                return 0;
        }
    }

    @Override
    public int callItems(ByteBuf call, int[] items) throws XdrException {
        if (call.readableBytes() < RpcMessageLayout.MIN_CALL) {
            throw new XdrException("an RPC call of " + call.readableBytes() + " bytes");
        }
        int base = call.readerIndex();
        if (call.getInt(base + RpcMessageLayout.PROGRAM) != NFS_PROGRAM) {
            return 0;
        }
        int version = call.getInt(base + RpcMessageLayout.VERSION);
        int procedure = call.getInt(base + RpcMessageLayout.PROCEDURE);
        XdrCursor c = new XdrCursor(call);
        c.skip(RpcMessageLayout.arguments(call));
        switch (version) {
            case 2:
                if (procedure == NFSPROC2_WRITE) {
                    c.skip(NFS2_FHSIZE + 12); // fhandle, beginoffset, offset, totalcount
                    return c.item(MAX_DATA, items, 0);
                }
                if (procedure == NFSPROC2_SYMLINK) {
                    c.skip(NFS2_FHSIZE);
                    c.skipOpaque(MAX_NAME);
                    return c.item(MAX_NAME, items, 0); // path; sattr follows it
                }
                return 0;
            case 3:
                if (procedure == NFSPROC3_WRITE) {
                    c.skipOpaque(NFS3_FHSIZE);
                    c.skip(16); // offset3, count3, stable_how
                    return c.item(MAX_DATA, items, 0);
                }
                if (procedure == NFSPROC3_SYMLINK) {
                    c.skipOpaque(NFS3_FHSIZE);
                    c.skipOpaque(MAX_NAME);
                    skipSattr3(c);
                    return c.item(MAX_NAME, items, 0);
                }
                return 0;
            case 4:
                return procedure == 1 ? compoundCall(c, items) : 0;
            default:
                return 0;
        }
    }

    private static int v2Reply(int procedure, XdrCursor c, int[] items) throws XdrException {
        if (procedure != NFSPROC3_READ && procedure != NFSPROC3_READLINK) {
            return 0;
        }
        if (c.readInt() != 0) {
            return 0; // NFSERR_*: no data
        }
        if (procedure == NFSPROC3_READ) {
            c.skip(FATTR2);
        }
        return c.item(MAX_DATA, items, 0);
    }

    private static int v3Reply(int procedure, XdrCursor c, int[] items) throws XdrException {
        if (procedure != NFSPROC3_READ && procedure != NFSPROC3_READLINK) {
            return 0;
        }
        int status = c.readInt();
        skipPostOpAttr(c);
        if (status != 0) {
            return 0;
        }
        if (procedure == NFSPROC3_READ) {
            c.skip(8); // count3, eof
        }
        return c.item(MAX_DATA, items, 0);
    }

    /** RFC 5661 §16.2: COMPOUND4res; READ4resok and READLINK4resok carry the items (RFC 8267 §6.1, §6.4.1). */
    private static int compoundReply(XdrCursor c, int[] items) throws XdrException {
        c.readInt(); // status of the COMPOUND
        c.skipOpaque(MAX_NAME); // tag
        long count = Integer.toUnsignedLong(c.readInt());
        int found = 0;
        for (long i = 0; i < count; i++) {
            int op = c.readInt();
            int status = c.readInt();
            if (status != 0) {
                return found; // a COMPOUND stops at its first error (RFC 5661 §16.2.3)
            }
            switch (op) {
                case OP_SEQUENCE:
                    c.skip(36); // sessionid, sequenceid, slotid, highest_slotid, target_highest_slotid, status_flags
                    break;
                case OP_PUTFH:
                case OP_PUTPUBFH:
                case OP_PUTROOTFH:
                case OP_SAVEFH:
                case OP_RESTOREFH:
                case OP_LOOKUP:
                case OP_LOOKUPP:
                    break;
                case OP_GETFH:
                    c.skipOpaque(NFS4_FHSIZE);
                    break;
                case OP_ACCESS:
                    c.skip(8);
                    break;
                case OP_GETATTR:
                    skipFattr4(c);
                    break;
                case OP_READ:
                    c.readBool(); // eof
                    found = c.item(MAX_DATA, items, found);
                    break;
                case OP_READLINK:
                    found = c.item(MAX_NAME, items, found);
                    break;
                default:
                    // An operation whose result layout this binding does not know: items after it cannot be found.
                    return i == count - 1 ? found : UNKNOWN;
            }
        }
        return found;
    }

    /** RFC 5661 §16.2: COMPOUND4args; WRITE4args carries the item (RFC 8267 §6.1). */
    private static int compoundCall(XdrCursor c, int[] items) throws XdrException {
        c.skipOpaque(MAX_NAME); // tag
        c.readInt(); // minorversion
        long count = Integer.toUnsignedLong(c.readInt());
        int found = 0;
        for (long i = 0; i < count; i++) {
            int op = c.readInt();
            switch (op) {
                case OP_SEQUENCE:
                    c.skip(32); // sessionid, sequenceid, slotid, highest_slotid, cachethis
                    break;
                case OP_PUTFH:
                    c.skipOpaque(NFS4_FHSIZE);
                    break;
                case OP_PUTPUBFH:
                case OP_PUTROOTFH:
                case OP_SAVEFH:
                case OP_RESTOREFH:
                case OP_GETFH:
                case OP_LOOKUPP:
                case OP_READLINK:
                    break;
                case OP_LOOKUP:
                    c.skipOpaque(MAX_NAME);
                    break;
                case OP_ACCESS:
                    c.skip(4);
                    break;
                case OP_GETATTR:
                    skipBitmap(c);
                    break;
                case OP_READ:
                    c.skip(28); // stateid, offset, count
                    break;
                case OP_WRITE:
                    c.skip(28); // stateid, offset, stable
                    found = c.item(MAX_DATA, items, found);
                    break;
                default:
                    return i == count - 1 ? found : UNKNOWN;
            }
        }
        return found;
    }

    private static void skipPostOpAttr(XdrCursor c) throws XdrException {
        if (c.readBool()) {
            c.skip(FATTR3);
        }
    }

    /** RFC 1813 sattr3: five optional fields; the two times are set_time unions (DONT, SERVER, CLIENT + nfstime3). */
    private static void skipSattr3(XdrCursor c) throws XdrException {
        for (int size : new int[] {4, 4, 4, 8}) {
            if (c.readBool()) {
                c.skip(size);
            }
        }
        for (int t = 0; t < 2; t++) {
            int how = c.readInt();
            if (how == 2) {
                c.skip(8);
            } else if (how != 0 && how != 1) {
                throw new XdrException("time_how " + Integer.toUnsignedString(how));
            }
        }
    }

    private static void skipBitmap(XdrCursor c) throws XdrException {
        long words = Integer.toUnsignedLong(c.readInt());
        c.skip(4 * words);
    }

    private static void skipFattr4(XdrCursor c) throws XdrException {
        skipBitmap(c);
        c.skipOpaque(Integer.MAX_VALUE);
    }
}
