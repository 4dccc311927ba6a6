package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.time.Duration;

/**
 * Sends callbacks over a session's backchannel (RFC 5661 §20): CB_COMPOUND with CB_SEQUENCE on backchannel slot 0
 * (§20.9) then CB_RECALL (§20.2), with the ordinary RPC client on the connection the client bound for callbacks,
 * each call carrying the security the client offered for callbacks ({@link Session#cbSecurity}).
 * One callback at a time per session (one slot): the others wait in the session's queue. Never blocks: the reply
 * is handled when it arrives, with the {@link Nfs4State} lock taken again. Called with that lock held.
 */
final class Callbacks {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(Callbacks.class);
    private static final CallOptions OPTIONS = CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(15));

    private final Nfs4State state;

    Callbacks(Nfs4State state) {
        this.state = state;
    }

    /** Recalls {@code delegation} (CB_RECALL, truncate false) through {@code session}. */
    void recall(Session session, StateId delegation, byte[] fileHandle) {
        enqueue(session, () -> send(session, delegation, fileHandle));
    }

    private void enqueue(Session session, Runnable send) {
        if (session.cbBusy) {
            session.cbQueue.add(send);
        } else {
            session.cbBusy = true;
            send.run();
        }
    }

    private void send(Session session, StateId delegation, byte[] fileHandle) {
        if (!session.canCallBack()) {
            logger.info("{}: backchannel down, {} not recalled (revoked at lease end)", session, delegation);
            done(session);
            return;
        }
        RpcClient client = RpcClient.of(session.backChannel);
        XdrPayload args = client.newPayload();
        XdrWriter w = args.writer();
        w.writeString("").writeInt(Nfs4.MINOR_VERSION).writeInt(0).writeInt(2);
        // CB_SEQUENCE4args (RFC 5661 §20.9.1)
        w.writeInt(Nfs4.CB_SEQUENCE).writeFixedOpaque(session.id).writeInt(session.cbSeqid).writeInt(0)
                .writeInt(0).writeBool(false).writeInt(0);
        // CB_RECALL4args (RFC 5661 §20.2.1)
        w.writeInt(Nfs4.CB_RECALL);
        delegation.encode(w, state.boot);
        w.writeBool(false).writeOpaque(fileHandle);
        int seqid = session.cbSeqid;
        logger.debug("{}: CB_RECALL {} (cb seqid {})", session, delegation, seqid);
        // The security is one the client offered in csa_sec_parms or bca_sec_parms (RFC 5661 §18.36.3, §18.33).
        CallOptions options = session.cbSecurity.options(OPTIONS);
        client.call(session.cbProgram, Nfs4.CB_VERSION, Nfs4.CB_PROC_COMPOUND, args, r -> r.readInt(), options)
                .whenComplete((status, failure) -> {
                    synchronized (state) {
                        if (failure == null) {
                            // The slot's sequence advances once the client processed CB_SEQUENCE (any reply).
                            session.cbSeqid = seqid + 1;
                            if (status != Nfs4.NFS4_OK) {
                                logger.info("{}: CB_RECALL of {} answered {}", session, delegation, status);
                            }
                        } else {
                            logger.info("{}: CB_RECALL of {} failed: {}", session, delegation, failure.toString());
                        }
                        done(session);
                    }
                });
    }

    private void done(Session session) {
        Runnable next = session.cbQueue.poll();
        if (next == null) {
            session.cbBusy = false;
        } else {
            next.run();
        }
    }
}
