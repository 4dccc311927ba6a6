package dev.rpcrdma.samples.callback;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's callback program, shaped like NFSv4.1's (RFC 5661 §20): program 0x40000000 version 1, CB_NULL and
 * CB_COMPOUND carrying CB_SEQUENCE (§20.9) then CB_RECALL (§20.2). The demo's CB_COMPOUND is the real XDR of those
 * two operations (tag, minorversion 1, the sessionid, sequence and slot of CB_SEQUENCE, the stateid, truncate flag
 * and file handle of CB_RECALL) and is answered as an NFSv4.1 client would: NFS4_OK, CB_SEQUENCE's result echoing
 * the session, sequence and slot. Stateless apart from counters; any thread.
 */
final class CallbackProgram {
    static final int PROGRAM = 0x40000000;
    static final int VERSION = 1;
    static final int CB_NULL = 0;
    static final int CB_COMPOUND = 1;
    static final int OP_CB_RECALL = 4;
    static final int OP_CB_SEQUENCE = 11;
    static final int NFS4_OK = 0;
    static final int NFS4ERR_OP_ILLEGAL = 10044;

    final AtomicLong recalls = new AtomicLong();

    RpcDispatcher dispatcher(RpcStats stats) {
        return new RpcDispatcher(new RpcProgramRegistry().registerNull(PROGRAM, VERSION)
                .register(PROGRAM, VERSION, CB_COMPOUND, (call, args) -> {
                    XdrPayload results = call.newPayload();
                    answer(args, results.writer());
                    call.replySuccess(results);
                }), stats);
    }

    /** Decodes a CB_COMPOUND of CB_SEQUENCE + CB_RECALL and writes its CB_COMPOUND4res. */
    private void answer(XdrReader in, XdrWriter out) throws XdrException {
        byte[] tag = in.readOpaque(64);
        in.readInt(); // minorversion
        in.readInt(); // callback_ident
        int ops = in.readInt();
        if (ops != 2 || in.readInt() != OP_CB_SEQUENCE) {
            out.writeInt(NFS4ERR_OP_ILLEGAL).writeOpaque(tag).writeInt(0);
            return;
        }
        byte[] session = in.readFixedOpaque(16);
        int sequence = in.readInt();
        int slot = in.readInt();
        int highestSlot = in.readInt();
        in.readInt(); // cachethis
        in.readInt(); // csa_referring_call_lists<>: empty
        if (in.readInt() != OP_CB_RECALL) {
            out.writeInt(NFS4ERR_OP_ILLEGAL).writeOpaque(tag).writeInt(0);
            return;
        }
        in.readFixedOpaque(16); // stateid
        in.readInt(); // truncate
        in.readOpaque(128); // file handle (NFS4_FHSIZE)
        recalls.incrementAndGet();
        out.writeInt(NFS4_OK).writeOpaque(tag).writeInt(2);
        out.writeInt(OP_CB_SEQUENCE).writeInt(NFS4_OK).writeFixedOpaque(session).writeInt(sequence).writeInt(slot)
                .writeInt(highestSlot).writeInt(highestSlot);
        out.writeInt(OP_CB_RECALL).writeInt(NFS4_OK);
    }

    /** Writes the arguments of a CB_COMPOUND of CB_SEQUENCE + CB_RECALL (what a server sends to recall). */
    static void writeRecall(XdrWriter out, byte[] session, int sequence, byte[] stateid, byte[] fileHandle) {
        out.writeOpaque(new byte[0]).writeInt(1).writeInt(0).writeInt(2);
        out.writeInt(OP_CB_SEQUENCE).writeFixedOpaque(session).writeInt(sequence).writeInt(0).writeInt(0)
                .writeInt(0).writeInt(0);
        out.writeInt(OP_CB_RECALL).writeFixedOpaque(stateid).writeInt(0).writeOpaque(fileHandle);
    }

    /** Reads a CB_COMPOUND4res: true if it and both operations are NFS4_OK. */
    static boolean recallAnswered(XdrReader in) throws XdrException {
        int status = in.readInt();
        in.readOpaque(64);
        int ops = in.readInt();
        if (status != NFS4_OK || ops != 2 || in.readInt() != OP_CB_SEQUENCE || in.readInt() != NFS4_OK) {
            return false;
        }
        in.readFixedOpaque(16);
        in.readInt();
        in.readInt();
        in.readInt();
        in.readInt();
        return in.readInt() == OP_CB_RECALL && in.readInt() == NFS4_OK;
    }
}
