package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Directory operations (RFC 5661 §18.23 READDIR, §18.4 CREATE, §18.25 REMOVE, §18.26 RENAME). READDIR resumes
 * from the cookie of the last entry the client saw and fills at most the client's maxcount, so a large directory
 * comes in several calls; removing or renaming a file another client holds a delegation on recalls it first
 * (§10.4.1). Stateless; runs with the state lock held.
 */
final class DirectoryOps {
    private DirectoryOps() {
    }

    /** Entries fetched from the file system at a time. */
    private static final int BATCH = 128;
    private static final byte[] COOKIE_VERIFIER = new byte[Nfs4.VERIFIER_SIZE];

    static void register(Operation[] ops) {
        ops[Nfs4.OP_READDIR] = DirectoryOps::readdir;
        ops[Nfs4.OP_CREATE] = DirectoryOps::create;
        ops[Nfs4.OP_REMOVE] = DirectoryOps::remove;
        ops[Nfs4.OP_RENAME] = DirectoryOps::rename;
    }

    static void readdir(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        long cookie = in.readHyper();
        in.readFixedOpaque(Nfs4.VERIFIER_SIZE);
        in.readInt(); // dircount: a hint (RFC 5661 §18.23.3), not needed with maxcount
        int maxcount = in.readInt();
        int[] requested = Attributes.readBitmap(in);
        long dir = ctx.currentDirectory();
        if (!ctx.fs.validCookie(dir, cookie)) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_COOKIE);
        }
        // READDIR4resok: verifier (8), entries, the list's terminating FALSE (4), eof (4).
        int budget = Math.min(maxcount, SessionOps.MAX_MESSAGE) - 16;
        ByteBuf entries = ctx.call.alloc().buffer();
        ByteBuf one = ctx.call.alloc().buffer();
        try {
            boolean eof = false;
            boolean full = false;
            int count = 0;
            while (!full) {
                List<DirEntry> batch = ctx.fs.list(dir, cookie, BATCH);
                for (DirEntry e : batch) {
                    FileAttrs a;
                    try {
                        a = ctx.fs.attrs(e.fileid());
                    } catch (Nfs4Exception gone) {
                        cookie = e.cookie(); // removed meanwhile (host directory): skip it
                        continue;
                    }
                    one.clear();
                    XdrWriter w = new XdrWriter(one);
                    w.writeInt(1).writeHyper(e.cookie()).writeString(e.name());
                    Attributes.encode(w, requested, a, ctx.attrContext(e.fileid()));
                    if (entries.readableBytes() + one.readableBytes() > budget) {
                        full = true;
                        break;
                    }
                    entries.writeBytes(one);
                    cookie = e.cookie();
                    count++;
                }
                if (!full && batch.size() < BATCH) {
                    eof = true;
                    break;
                }
            }
            if (count == 0 && !eof) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_TOOSMALL);
            }
            XdrWriter w = out.writer();
            w.writeFixedOpaque(COOKIE_VERIFIER);
            w.buffer().writeBytes(entries);
            w.writeBool(false).writeBool(eof);
        } finally {
            entries.release();
            one.release();
        }
    }

    static void writeChangeInfo(XdrWriter w, long before, long after) {
        w.writeBool(true).writeHyper(before).writeHyper(after);
    }

    static void create(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        int type = in.readInt();
        switch (type) {
            case Nfs4.NF4LNK -> in.readString(Nfs4.MAX_IO);
            case 3, 4 -> in.readHyper(); // NF4BLK, NF4CHR: specdata4
            default -> {
            }
        }
        String name = in.readString(Nfs4.OPAQUE_LIMIT);
        SetAttrs set = Attributes.decodeSet(in);
        long dir = ctx.currentDirectory();
        CompoundContext.checkName(name);
        if (type != Nfs4.NF4DIR) {
            throw new Nfs4Exception(type == Nfs4.NF4REG ? Nfs4.NFS4ERR_BADTYPE : Nfs4.NFS4ERR_NOTSUPP);
        }
        long before = ctx.fs.attrs(dir).change;
        long created = ctx.fs.create(dir, name, Nfs4.NF4DIR, set.mode >= 0 ? set.mode : 0755, ctx.uid, ctx.gid);
        set.mode = -1;
        if (!set.isEmpty()) {
            ctx.fs.setAttrs(created, set);
        }
        long after = ctx.fs.attrs(dir).change;
        ctx.moveTo(created);
        XdrWriter w = out.writer();
        writeChangeInfo(w, before, after);
        Attributes.writeBitmap(w, set.mask);
    }

    static void remove(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        String name = in.readString(Nfs4.OPAQUE_LIMIT);
        long dir = ctx.currentDirectory();
        long target = ctx.fs.lookup(dir, CompoundContext.checkName(name));
        ctx.state.breakDelegations(target, ctx.client(), CompoundContext.fileHandle(target));
        long before = ctx.fs.attrs(dir).change;
        ctx.fs.remove(dir, name);
        writeChangeInfo(out.writer(), before, ctx.fs.attrs(dir).change);
    }

    static void rename(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        String from = in.readString(Nfs4.OPAQUE_LIMIT);
        String to = in.readString(Nfs4.OPAQUE_LIMIT);
        long src = ctx.saved();
        long dst = ctx.currentDirectory();
        if (!ctx.fs.attrs(src).isDirectory()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOTDIR);
        }
        CompoundContext.checkName(from);
        CompoundContext.checkName(to);
        ClientRecord c = ctx.client();
        long moved = ctx.fs.lookup(src, from);
        ctx.state.breakDelegations(moved, c, CompoundContext.fileHandle(moved));
        try {
            long replaced = ctx.fs.lookup(dst, to);
            ctx.state.breakDelegations(replaced, c, CompoundContext.fileHandle(replaced));
        } catch (Nfs4Exception e) {
            if (e.status() != Nfs4.NFS4ERR_NOENT) {
                throw e;
            }
        }
        long srcBefore = ctx.fs.attrs(src).change;
        long dstBefore = ctx.fs.attrs(dst).change;
        ctx.fs.rename(src, from, dst, to);
        XdrWriter w = out.writer();
        writeChangeInfo(w, srcBefore, ctx.fs.attrs(src).change);
        writeChangeInfo(w, dstBefore, ctx.fs.attrs(dst).change);
    }
}
