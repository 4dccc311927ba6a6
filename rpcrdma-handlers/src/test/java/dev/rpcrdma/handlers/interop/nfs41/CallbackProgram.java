package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The NFSv4.1 callback program of the test client (RFC 5661 §20): CB_NULL and CB_COMPOUND with CB_SEQUENCE
 * (§20.9: session, slot and sequence checked against the back channel we offered, results echoing them; no reply
 * cache, as ca_maxresponsesize_cached is 0) and CB_RECALL (§20.2: answered NFS4_OK and queued for the test thread,
 * which returns the delegation with DELEGRETURN on the fore channel). Other callback operations are refused
 * (NFS4ERR_NOTSUPP, or OP_CB_ILLEGAL outside the range). Calls arrive on the connection's event loop and are
 * answered there; the slot table is confined to it. The session id is set by the test thread (volatile).
 */
public final class CallbackProgram {
    private static final int NFS4ERR_MINOR_VERS_MISMATCH = 10021;
    private static final int NFS4ERR_SEQUENCE_POS = 10064;
    private static final int NFS4ERR_OP_NOT_IN_SESSION = 10071;
    private static final int FIRST_CB_OP = 3;
    private static final int LAST_CB_OP = 15;

    /** A CB_RECALL received (§20.2.1 CB_RECALL4args). */
    public record Recall(Stateid stateid, boolean truncate, byte[] fh) {
    }

    /** The CB_SEQUENCE arguments of the last CB_COMPOUND (§20.9.1), for the test's report. */
    public record CbSequence(byte[] sessionId, int sequenceId, int slotId, int highestSlotId) {
    }

    private final int slots;
    private final int[] slotSequence;
    private final BlockingQueue<Recall> recalls = new LinkedBlockingQueue<>();
    private final AtomicInteger compounds = new AtomicInteger();
    private volatile byte[] sessionId;
    private volatile CbSequence lastSequence;

    /** A callback program serving a back channel of {@code slots} slots (ca_maxrequests of CREATE_SESSION). */
    public CallbackProgram(int slots) {
        this.slots = slots;
        this.slotSequence = new int[slots];
    }

    /** A dispatcher of this program for a client initializer's {@code withCallbacks}. */
    public RpcDispatcher dispatcher(RpcStats stats) {
        return new RpcDispatcher(new RpcProgramRegistry().registerNull(Nfs4.CB_PROGRAM, Nfs4.CB_VERSION)
                .register(Nfs4.CB_PROGRAM, Nfs4.CB_VERSION, Nfs4.CB_PROC_COMPOUND, this::compound), stats);
    }

    /** The session whose back channel this is (from CREATE_SESSION's result). */
    public void session(byte[] id) {
        sessionId = id.clone();
    }

    /** CB_RECALLs received and not yet taken. */
    public BlockingQueue<Recall> recalls() {
        return recalls;
    }

    /** CB_COMPOUNDs answered. */
    public int compounds() {
        return compounds.get();
    }

    /** The last CB_SEQUENCE, or null. */
    public CbSequence lastSequence() {
        return lastSequence;
    }

    private void compound(RpcCallContext call, XdrReader args) throws XdrException {
        String tag = args.readString(Nfs4.OPAQUE_LIMIT);
        int minor = args.readInt();
        args.readInt(); // callback_ident (not used in 4.1)
        int count = args.readArrayLength(Nfs4.MAX_OPS, 4);
        List<int[]> results = new ArrayList<>(); // {op, status, (CB_SEQUENCE: sequenceid, slotid)}
        List<Recall> recalled = new ArrayList<>();
        int status = Nfs4.NFS4_OK;
        byte[] session = null;
        if (minor != Nfs4.MINOR_VERSION) {
            status = NFS4ERR_MINOR_VERS_MISMATCH;
            count = 0;
        }
        for (int i = 0; i < count && status == Nfs4.NFS4_OK; i++) {
            int op = args.readInt();
            if (op == Nfs4.OP_CB_SEQUENCE) {
                session = args.readFixedOpaque(Nfs4.SESSIONID_SIZE);
                int sequence = args.readInt();
                int slot = args.readInt();
                int highest = args.readInt();
                args.readBool(); // cachethis
                int lists = args.readArrayLength(Nfs4.MAX_OPS, Nfs4.SESSIONID_SIZE + 4);
                for (int l = 0; l < lists; l++) {
                    args.readFixedOpaque(Nfs4.SESSIONID_SIZE);
                    int calls = args.readArrayLength(64, 8);
                    for (int c = 0; c < calls; c++) {
                        args.readInt();
                        args.readInt();
                    }
                }
                lastSequence = new CbSequence(session, sequence, slot, highest);
                status = i != 0 ? NFS4ERR_SEQUENCE_POS : checkSlot(session, slot, sequence);
                results.add(new int[] {op, status, sequence, slot});
            } else if (i == 0) {
                status = NFS4ERR_OP_NOT_IN_SESSION;
                results.add(new int[] {legal(op) ? op : Nfs4.OP_CB_ILLEGAL, status});
            } else if (op == Nfs4.OP_CB_RECALL) {
                Stateid stateid = Stateid.decode(args);
                boolean truncate = args.readBool();
                byte[] fh = args.readOpaque(Nfs4.FHSIZE);
                recalled.add(new Recall(stateid, truncate, fh));
                results.add(new int[] {op, Nfs4.NFS4_OK});
            } else {
                status = legal(op) ? Nfs4.NFS4ERR_NOTSUPP : Nfs4.NFS4ERR_OP_ILLEGAL;
                results.add(new int[] {legal(op) ? op : Nfs4.OP_CB_ILLEGAL, status});
            }
        }
        XdrPayload reply = call.newPayload();
        XdrWriter w = reply.writer();
        w.writeInt(status).writeString(tag).writeInt(results.size());
        for (int[] r : results) {
            w.writeInt(r[0]).writeInt(r[1]);
            if (r[0] == Nfs4.OP_CB_SEQUENCE && r[1] == Nfs4.NFS4_OK) {
                // §20.9.3: the session, sequence and slot echoed; our highest and target slot ids.
                w.writeFixedOpaque(session).writeInt(r[2]).writeInt(r[3]).writeInt(slots - 1).writeInt(slots - 1);
            }
        }
        compounds.incrementAndGet();
        call.replySuccess(reply);
        recalls.addAll(recalled); // after the reply: the test thread answers with DELEGRETURN
    }

    private static boolean legal(int op) {
        return op >= FIRST_CB_OP && op <= LAST_CB_OP;
    }

    /** §2.10.6.1: the slot's sequence id must be the previous one plus one (no reply cache: a retry is refused). */
    private int checkSlot(byte[] session, int slot, int sequence) {
        byte[] ours = sessionId;
        if (ours == null || !Arrays.equals(ours, session)) {
            return Nfs4.NFS4ERR_BADSESSION;
        }
        if (slot < 0 || slot >= slots) {
            return Nfs4.NFS4ERR_BADSLOT;
        }
        int expected = slotSequence[slot] + 1;
        if (sequence == slotSequence[slot]) {
            return Nfs4.NFS4ERR_RETRY_UNCACHED_REP;
        }
        if (sequence != expected) {
            return Nfs4.NFS4ERR_SEQ_MISORDERED;
        }
        slotSequence[slot] = sequence;
        return Nfs4.NFS4_OK;
    }
}
