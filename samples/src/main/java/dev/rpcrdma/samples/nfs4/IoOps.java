package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;

/**
 * Data operations (RFC 5661 §18.22 READ, §18.32 WRITE, §18.3 COMMIT). READ's data goes out as a DDP-eligible
 * opaque and WRITE's comes in as one ({@link XdrPayload#writeDdpOpaque}, {@link XdrReader#readDdpOpaque}): over
 * RPC-over-RDMA they travel in the client's Write and Read chunks, over TCP inline. Stateless; runs with the state
 * lock held.
 */
final class IoOps {
    private IoOps() {
    }

    static void register(Operation[] ops) {
        ops[Nfs4.OP_READ] = IoOps::read;
        ops[Nfs4.OP_WRITE] = IoOps::write;
        ops[Nfs4.OP_COMMIT] = IoOps::commit;
    }

    /**
     * Checks the stateid of a READ, WRITE or size-changing SETATTR (RFC 5661 §8.2.4, §9.1.2): the special
     * anonymous and bypass stateids pass; otherwise it must be this client's open or delegation of this file,
     * and a write needs an open with write access (OPENMODE).
     */
    static void checkStateid(CompoundContext ctx, StateId.Wire w, long fileid, int access) throws Nfs4Exception {
        if (w.isSpecial()) {
            return;
        }
        StateId s = ctx.state.find(OpenOps.resolve(ctx, w), ctx.client());
        if (s.fileid != fileid) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BAD_STATEID);
        }
        if (access == Nfs4.OPEN4_SHARE_ACCESS_WRITE
                && (s.isDelegation() || (s.access & Nfs4.OPEN4_SHARE_ACCESS_WRITE) == 0)) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_OPENMODE);
        }
    }

    private static long regularFile(CompoundContext ctx) throws Nfs4Exception {
        long fh = ctx.current();
        FileAttrs a = ctx.fs.attrs(fh);
        if (a.isDirectory()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_ISDIR);
        }
        if (a.type != Nfs4.NF4REG) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        return fh;
    }

    static void read(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        StateId.Wire w = StateId.Wire.decode(in);
        long offset = in.readHyper();
        int count = (int) Math.min(in.readUnsignedInt(), Nfs4.MAX_IO);
        long fh = regularFile(ctx);
        checkStateid(ctx, w, fh, Nfs4.OPEN4_SHARE_ACCESS_READ);
        if (offset < 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        long size = ctx.fs.attrs(fh).size;
        // The data cannot be taken back once placed: its room in the reply is checked first (RFC 5661 §2.10.6.4).
        long n = Math.max(0, Math.min(count, size - offset));
        ctx.reserve(out, 8 + ((n + 3) & ~3));
        ByteBuf data = ctx.fs.read(fh, offset, count, ctx.call.alloc());
        out.writer().writeBool(offset + data.readableBytes() >= size);
        out.writeDdpOpaque(data);
    }

    static void write(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        StateId.Wire w = StateId.Wire.decode(in);
        long offset = in.readHyper();
        int stable = in.readInt();
        ByteBuf data = in.readDdpOpaque(Nfs4.MAX_IO);
        try {
            long fh = regularFile(ctx);
            checkStateid(ctx, w, fh, Nfs4.OPEN4_SHARE_ACCESS_WRITE);
            if (offset < 0 || stable < Nfs4.UNSTABLE4 || stable > Nfs4.FILE_SYNC4) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
            }
            ctx.state.breakDelegations(fh, ctx.client(), CompoundContext.fileHandle(fh));
            int count = data.readableBytes();
            int committed = ctx.fs.write(fh, offset, data, stable);
            out.writer().writeInt(count).writeInt(committed).writeFixedOpaque(ctx.state.writeVerifier);
        } finally {
            data.release();
        }
    }

    static void commit(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception {
        in.readHyper();
        in.readInt();
        long fh = regularFile(ctx);
        ctx.fs.commit(fh);
        out.writer().writeFixedOpaque(ctx.state.writeVerifier);
    }
}
