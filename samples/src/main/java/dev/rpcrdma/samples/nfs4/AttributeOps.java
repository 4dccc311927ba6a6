package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;

/**
 * Attribute operations (RFC 5661 §18.7 GETATTR, §18.30 SETATTR, §18.1 ACCESS). SETATTR of the size of a file
 * another client holds a delegation on recalls it first (§10.4.1). Stateless; runs with the state lock held.
 */
final class AttributeOps {
    private AttributeOps() {
    }

    static void register(Operation[] ops) {
        ops[Nfs4.OP_GETATTR] = AttributeOps::getattr;
        ops[Nfs4.OP_SETATTR] = AttributeOps::setattr;
        ops[Nfs4.OP_ACCESS] = AttributeOps::access;
    }

    static void getattr(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        int[] requested = Attributes.readBitmap(in);
        long fh = ctx.current();
        FileAttrs a = ctx.fs.attrs(fh);
        Attributes.encode(out.writer(), requested, a, ctx.attrContext(fh));
    }

    static void setattr(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        StateId.Wire stateid = StateId.Wire.decode(in);
        SetAttrs set = Attributes.decodeSet(in);
        long fh = ctx.current();
        if (set.size >= 0) {
            IoOps.checkStateid(ctx, stateid, fh, Nfs4.OPEN4_SHARE_ACCESS_WRITE);
            ctx.state.breakDelegations(fh, ctx.client(), CompoundContext.fileHandle(fh));
        }
        ctx.fs.setAttrs(fh, set);
        Attributes.writeBitmap(out.writer(), set.mask);
    }

    /** RFC 5661 §18.1: what the caller's uid/gid may do by the mode bits (root may do everything). */
    static void access(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        int requested = in.readInt();
        FileAttrs a = ctx.fs.attrs(ctx.current());
        int bits;
        if (ctx.uid == 0) {
            bits = 7;
        } else if (ctx.uid == a.uid) {
            bits = (a.mode >> 6) & 7;
        } else if (ctx.gid == a.gid) {
            bits = (a.mode >> 3) & 7;
        } else {
            bits = a.mode & 7;
        }
        int granted = 0;
        if ((bits & 4) != 0) {
            granted |= Nfs4.ACCESS4_READ;
        }
        if ((bits & 2) != 0) {
            granted |= Nfs4.ACCESS4_MODIFY | Nfs4.ACCESS4_EXTEND | (a.isDirectory() ? Nfs4.ACCESS4_DELETE : 0);
        }
        if ((bits & 1) != 0) {
            granted |= a.isDirectory() ? Nfs4.ACCESS4_LOOKUP : Nfs4.ACCESS4_EXECUTE;
        }
        int supported = requested & 0x3f;
        out.writer().writeInt(supported).writeInt(granted & supported);
    }
}
