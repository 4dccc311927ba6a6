package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcProcedure;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/**
 * The COMPOUND procedure (RFC 5661 §16.2, §15.2): decodes the header and then one operation at a time, bounded
 * (a tag over 1 KiB does not decode: GARBAGE_ARGS; more than {@link #MAX_OPS} operations: NFS4ERR_TOO_MANY_OPS at
 * once; SEQUENCE checks the session's ca_maxoperations and ca_maxrequestsize, §18.46.3), enforces where the
 * session operations may stand (§2.6.3.1.1.2: OP_NOT_IN_SESSION, NOT_ONLY_OP, SEQUENCE_POS), stops at the first
 * failing operation, answers REP_TOO_BIG / REP_TOO_BIG_TO_CACHE for results over the session's reply sizes
 * (§2.10.6.4), and answers a retransmission from the slot's reply cache (§2.10.6.1.3). Unknown operation
 * numbers are OP_ILLEGAL, known ones this server does not implement NOTSUPP. Nothing thrown by an operation
 * leaves this class except an undecodable header: the dispatcher answers GARBAGE_ARGS then. Runs on the event
 * loop of the connection, with the {@link Nfs4State} lock held for the whole compound.
 */
final class CompoundProcessor implements RpcProcedure {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(CompoundProcessor.class);

    /** The most operations any compound may carry, before a session bounds it further. */
    static final int MAX_OPS = 64;

    private final Nfs4Server server;
    private final Operation[] operations = new Operation[Nfs4.OP_LAST + 1];

    CompoundProcessor(Nfs4Server server) {
        this.server = server;
        SessionOps.register(operations);
        FileHandleOps.register(operations);
        AttributeOps.register(operations);
        DirectoryOps.register(operations);
        OpenOps.register(operations);
        IoOps.register(operations);
    }

    private static boolean sessionless(int op) {
        return op == Nfs4.OP_EXCHANGE_ID || op == Nfs4.OP_CREATE_SESSION || op == Nfs4.OP_DESTROY_SESSION
                || op == Nfs4.OP_BIND_CONN_TO_SESSION || op == Nfs4.OP_DESTROY_CLIENTID;
    }

    @Override
    public void call(RpcCallContext call, XdrReader args) throws XdrException {
        int requestSize = args.readableBytes();
        String tag = args.readString(Nfs4.OPAQUE_LIMIT);
        int minor = args.readInt();
        long count = args.readUnsignedInt();
        XdrPayload out = call.newPayload();
        XdrWriter w = out.writer();
        w.writeInt(0);
        ByteBuf head = w.buffer();
        int statusAt = head.writerIndex() - 4;
        w.writeString(tag);
        w.writeInt(0);
        int countAt = head.writerIndex() - 4;
        if (minor != Nfs4.MINOR_VERSION) {
            head.setInt(statusAt, Nfs4.NFS4ERR_MINOR_VERS_MISMATCH);
            call.replySuccess(out);
            return;
        }
        if (count > MAX_OPS) {
            head.setInt(statusAt, Nfs4.NFS4ERR_TOO_MANY_OPS);
            call.replySuccess(out);
            return;
        }
        CompoundContext ctx = new CompoundContext(server, call);
        ctx.opCount = (int) count;
        ctx.requestSize = requestSize;
        int status = Nfs4.NFS4_OK;
        int done = 0;
        WrongSec wrongSec = new WrongSec();
        Nfs4State state = server.state();
        synchronized (state) {
            for (int i = 0; i < count && status == Nfs4.NFS4_OK; i++) {
                int op;
                try {
                    op = args.readInt();
                } catch (XdrException e) {
                    w.writeInt(Nfs4.OP_ILLEGAL).writeInt(Nfs4.NFS4ERR_BADXDR);
                    status = Nfs4.NFS4ERR_BADXDR;
                    done++;
                    break;
                }
                if (!ctx.secure && wrongSec.before(op)) {
                    // RFC 5661 §2.6.3.1.1.7: the put filehandle operation answers WRONGSEC after all.
                    wrongSec.buffer.writerIndex(wrongSec.end);
                    wrongSec.buffer.setInt(wrongSec.end - 4, Nfs4.NFS4ERR_WRONGSEC);
                    status = Nfs4.NFS4ERR_WRONGSEC;
                    done = wrongSec.index + 1;
                    server.wrongSecCount.increment();
                    break;
                }
                boolean known = op >= Nfs4.OP_FIRST && op <= Nfs4.OP_LAST;
                w.writeInt(known ? op : Nfs4.OP_ILLEGAL);
                w.writeInt(0);
                ByteBuf b = w.buffer();
                int opStatusAt = b.writerIndex() - 4;
                int ddpItems = out.ddpItems().size();
                done++;
                try {
                    if (!known) {
                        throw new Nfs4Exception(Nfs4.NFS4ERR_OP_ILLEGAL);
                    }
                    checkPosition(ctx, i, (int) count, op);
                    Operation o = operations[op];
                    if (o == null) {
                        throw new Nfs4Exception(Nfs4.NFS4ERR_NOTSUPP);
                    }
                    if (!ctx.secure && (op == Nfs4.OP_LOOKUP || op == Nfs4.OP_LOOKUPP || op == Nfs4.OP_OPEN)) {
                        // §2.6.3.1.1.3, §2.6.3.1.1.4: these answer WRONGSEC themselves (one export, one policy).
                        server.wrongSecCount.increment();
                        throw new Nfs4Exception(Nfs4.NFS4ERR_WRONGSEC);
                    }
                    o.run(ctx, args, out);
                    if (!ctx.secure && WrongSec.isPutFh(op)) {
                        wrongSec.putFh(b, i);
                    }
                    if (ctx.replay != null) {
                        out.release();
                        call.replySuccess(XdrPayload.wrap(call.alloc(), ctx.replay));
                        return;
                    }
                    // RFC 5661 §2.10.6.4: results that overflow the session's reply sizes are taken back and the
                    // operation answers REP_TOO_BIG (or REP_TOO_BIG_TO_CACHE); it did run (it may have changed
                    // state, which the spec allows for an error after the first operation). Results with a
                    // DDP-eligible item (READ) cannot be taken back: READ checks its room before it reads.
                    int limit = ctx.replyLimitStatus(ctx.replyHeader + (long) out.inlineLength());
                    if (limit != Nfs4.NFS4_OK && out.ddpItems().size() == ddpItems) {
                        b.writerIndex(opStatusAt + 4);
                        throw new Nfs4Exception(limit);
                    }
                } catch (Nfs4Exception e) {
                    status = e.status();
                } catch (XdrException e) {
                    status = Nfs4.NFS4ERR_BADXDR;
                } catch (RuntimeException e) {
                    logger.warn("{}: operation {} failed", call.channel(), op, e);
                    status = Nfs4.NFS4ERR_SERVERFAULT;
                }
                if (status != Nfs4.NFS4_OK) {
                    b.setInt(opStatusAt, status);
                    if (op == Nfs4.OP_SETATTR) {
                        w.writeInt(0); // SETATTR4res.attrsset is there whatever the status (RFC 5661 §18.30)
                    }
                    if (logger.isDebugEnabled()) {
                        logger.debug("{}: op {} -> {}", call.channel(), op, status);
                    }
                }
            }
            head.setInt(statusAt, status);
            head.setInt(countAt, done);
            if (ctx.slot != null) {
                ctx.slot.cache(ctx.cacheThis ? out.toInlineBuffer(call.alloc()) : null);
            }
        }
        call.replySuccess(out);
    }

    /**
     * RFC 5661 §2.6.3.1.1: a put filehandle operation under a flavor the export refuses answers NFS4ERR_WRONGSEC
     * unless what follows it is SECINFO or SECINFO_NO_NAME (§2.6.3.1.1.5), LOOKUP, LOOKUPP or OPEN (which answer
     * WRONGSEC themselves, §2.6.3.1.1.3-4), another put filehandle operation (§2.6.3.1.1.2) or nothing
     * (§2.6.3.1.1.6); SAVEFH in between does not count (§2.6.3.1.1.1). As operations are decoded one at a time,
     * the verdict waits for the next operation number; a put filehandle operation's result is its status alone,
     * so it is rewritten in place.
     */
    private static final class WrongSec {
        /** The buffer holding the pending put filehandle operation's status, or null if none is pending. */
        ByteBuf buffer;
        /** The writer index just after that status, and the operation's index in the compound. */
        int end;
        int index;

        static boolean isPutFh(int op) {
            return op == Nfs4.OP_PUTFH || op == Nfs4.OP_PUTROOTFH || op == Nfs4.OP_RESTOREFH;
        }

        void putFh(ByteBuf b, int i) {
            buffer = b;
            end = b.writerIndex();
            index = i;
        }

        /** Whether the pending put filehandle operation must answer WRONGSEC now that {@code op} follows it. */
        boolean before(int op) {
            if (buffer == null || op == Nfs4.OP_SAVEFH) {
                return false;
            }
            boolean exempt = op == Nfs4.OP_SECINFO || op == Nfs4.OP_SECINFO_NO_NAME || op == Nfs4.OP_LOOKUP
                    || op == Nfs4.OP_LOOKUPP || op == Nfs4.OP_OPEN || isPutFh(op);
            if (exempt) {
                buffer = null;
            }
            return !exempt;
        }
    }

    /** Where session-related operations may stand in a compound (RFC 5661 §2.6.3.1.1.2, §18.46.3). */
    private static void checkPosition(CompoundContext ctx, int index, int count, int op) throws Nfs4Exception {
        if (index == 0) {
            if (op == Nfs4.OP_SEQUENCE) {
                return;
            }
            if (!sessionless(op)) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_OP_NOT_IN_SESSION);
            }
            if (count > 1) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_NOT_ONLY_OP);
            }
        } else if (op == Nfs4.OP_SEQUENCE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_SEQUENCE_POS);
        }
    }
}
