package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;

/**
 * Operations on the current and saved file handles and name lookup (RFC 5661 §18.22 PUTROOTFH, §18.19 PUTFH,
 * §18.8 GETFH, §18.27 SAVEFH, §18.25 RESTOREFH, §18.15 LOOKUP, §18.16 LOOKUPP, §18.29 SECINFO, §18.45 SECINFO_NO_NAME). A file
 * handle is 12 bytes: a magic and the file id. Stateless; runs with the state lock held.
 */
final class FileHandleOps {
    private FileHandleOps() {
    }

    static void register(Operation[] ops) {
        ops[Nfs4.OP_PUTROOTFH] = (ctx, in, out) -> ctx.moveTo(ctx.fs.rootId());
        ops[Nfs4.OP_PUTFH] = FileHandleOps::putfh;
        ops[Nfs4.OP_GETFH] = (ctx, in, out) -> out.writer().writeOpaque(CompoundContext.fileHandle(ctx.current()));
        ops[Nfs4.OP_SAVEFH] = FileHandleOps::savefh;
        ops[Nfs4.OP_RESTOREFH] = FileHandleOps::restorefh;
        ops[Nfs4.OP_LOOKUP] = FileHandleOps::lookup;
        ops[Nfs4.OP_LOOKUPP] = FileHandleOps::lookupp;
        ops[Nfs4.OP_SECINFO_NO_NAME] = FileHandleOps::secinfoNoName;
        ops[Nfs4.OP_SECINFO] = FileHandleOps::secinfo;
    }

    static void putfh(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        long fileid = CompoundContext.fileid(in.readOpaque(Nfs4.FHSIZE));
        try {
            ctx.fs.attrs(fileid); // STALE if it is gone
        } catch (Nfs4Exception e) {
            // An open file stays reachable through its handle until its last CLOSE, also once a REMOVE or a
            // RENAME over it took its name (RFC 5661 §18.25.4, §18.26.4): CLOSE and the like still work.
            if (e.status() != Nfs4.NFS4ERR_STALE || !ctx.state.isOpen(fileid)) {
                throw e;
            }
        }
        ctx.moveTo(fileid);
    }

    /** RFC 5661 §18.27: saves the current file handle and, with it, the current stateid (§16.2.3.1.2). */
    static void savefh(CompoundContext ctx, XdrReader in, XdrPayload out) throws Nfs4Exception {
        ctx.savedFh = ctx.current();
        ctx.savedStateid = ctx.currentStateid;
    }

    static void restorefh(CompoundContext ctx, XdrReader in, XdrPayload out) throws Nfs4Exception {
        if (ctx.savedFh == CompoundContext.NONE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_RESTOREFH);
        }
        ctx.currentFh = ctx.savedFh;
        ctx.currentStateid = ctx.savedStateid;
    }

    static void lookup(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        String name = in.readString(Nfs4.OPAQUE_LIMIT);
        long dir = ctx.currentDirectory();
        ctx.moveTo(ctx.fs.lookup(dir, CompoundContext.checkName(name)));
    }

    static void lookupp(CompoundContext ctx, XdrReader in, XdrPayload out) throws Nfs4Exception {
        long dir = ctx.currentDirectory();
        if (dir == ctx.fs.rootId()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
        }
        ctx.moveTo(ctx.fs.parent(dir));
    }

    /**
     * RFC 5661 §18.29: the flavors of the object {@code name} in the current directory (the export's, whatever the
     * call's flavor: §2.6.3.1.1.5); the current file handle is consumed (§2.6.3.1.1.8).
     */
    static void secinfo(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        String name = in.readString(Nfs4.OPAQUE_LIMIT);
        long dir = ctx.currentDirectory();
        ctx.fs.lookup(dir, CompoundContext.checkName(name)); // NOENT if it is not there
        ctx.moveTo(CompoundContext.NONE);
        ctx.server.security().encode(out.writer());
    }

    /**
     * RFC 5661 §18.45: the export's flavors for the current file handle or its parent; the current file handle is
     * consumed (§2.6.3.1.1.8).
     */
    static void secinfoNoName(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        int style = in.readInt();
        long fh = ctx.current();
        if (style == 1) {
            if (fh == ctx.fs.rootId()) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
            }
            ctx.fs.parent(fh);
        } else if (style != 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        ctx.moveTo(CompoundContext.NONE);
        ctx.server.security().encode(out.writer());
    }
}
