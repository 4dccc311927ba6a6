package dev.rpcrdma.handlers.interop.nfs41;

import dev.rpcrdma.handlers.interop.nfs41.CompoundResults.CreateSessionResult;
import dev.rpcrdma.handlers.interop.nfs41.CompoundResults.ExchangeIdResult;
import dev.rpcrdma.handlers.interop.nfs41.CompoundResults.OpenResult;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A minimal NFSv4.1 client on one {@link RpcClient} connection, for interoperability tests against a real server:
 * EXCHANGE_ID (SP4_NONE, AUTH_SYS root), CREATE_SESSION (optionally asking for the connection's back channel),
 * RECLAIM_COMPLETE, SEQUENCE on slot 0, OPEN/CLOSE of a file in the root directory, DELEGRETURN, DESTROY_SESSION and
 * DESTROY_CLIENTID (RFC 5661 §18). Blocking: driven by one test thread (never an event loop), one COMPOUND at a
 * time, so a single slot suffices.
 */
public final class Nfs41Client {
    private final RpcClient rpc;
    private final byte[] ownerId;
    private final CallOptions options;
    private final Duration timeout;
    private long clientId;
    private int exchangeSequence;
    private byte[] sessionId;
    private int slotSequence;
    private int lastStatusFlags;

    /** A client named {@code owner} (its client owner, RFC 5661 §2.4) on {@code rpc}, calls waiting {@code timeout}. */
    public Nfs41Client(RpcClient rpc, String owner, Duration timeout) {
        this.rpc = rpc;
        this.ownerId = owner.getBytes(StandardCharsets.US_ASCII);
        this.timeout = timeout;
        this.options = CallOptions.DEFAULT.withTimeout(timeout)
                .withCredential(new AuthSysCredential(1, "rpcrdma-test", 0, 0).toOpaqueAuth());
    }

    public long clientId() {
        return clientId;
    }

    public byte[] sessionId() {
        return sessionId.clone();
    }

    /** The status flags of the last SEQUENCE result (RFC 5661 §18.46.3). */
    public int lastStatusFlags() {
        return lastStatusFlags;
    }

    private <T> T call(CompoundArgs args, RpcReplyDecoder<T> decoder) throws Exception {
        try {
            return rpc.call(Nfs4.PROGRAM, Nfs4.VERSION, Nfs4.PROC_COMPOUND, args.payload(), decoder, options)
                    .get(timeout.toMillis() + 5000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private CompoundArgs compound(String tag, int operations) {
        return new CompoundArgs(rpc.newPayload(), tag, operations);
    }

    /** §18.35 EXCHANGE_ID. */
    public ExchangeIdResult exchangeId() throws Exception {
        byte[] verifier = new byte[8];
        long now = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            verifier[i] = (byte) (now >>> (8 * i));
        }
        ExchangeIdResult r = call(compound("exchange_id", 1).exchangeId(verifier, ownerId, 0),
                res -> new CompoundResults(res).exchangeId());
        clientId = r.clientId();
        exchangeSequence = r.sequenceId();
        return r;
    }

    /** §18.36 CREATE_SESSION with {@code flags}, the fore channel {@code fore} and the back channel {@code back}. */
    public CreateSessionResult createSession(int flags, ChannelAttrs fore, ChannelAttrs back) throws Exception {
        CreateSessionResult r = call(compound("create_session", 1).createSession(clientId, exchangeSequence, flags,
                fore, back, Nfs4.CB_PROGRAM), res -> new CompoundResults(res).createSession());
        sessionId = r.sessionId();
        slotSequence = 0;
        return r;
    }

    private CompoundArgs sequenced(String tag, int operations) {
        slotSequence++;
        return compound(tag, operations + 1).sequence(sessionId, slotSequence, 0, 0);
    }

    /** A COMPOUND of SEQUENCE alone (renews the lease); returns its status flags. */
    public int sequence() throws Exception {
        byte[] session = sessionId;
        lastStatusFlags = call(sequenced("sequence", 0), res -> new CompoundResults(res).sequence(session));
        return lastStatusFlags;
    }

    /** §18.51 RECLAIM_COMPLETE (nothing to reclaim). */
    public void reclaimComplete() throws Exception {
        byte[] session = sessionId;
        call(sequenced("reclaim_complete", 1).reclaimComplete(), res -> {
            CompoundResults c = new CompoundResults(res);
            lastStatusFlags = c.sequence(session);
            c.statusOnly(Nfs4.OP_RECLAIM_COMPLETE);
            return null;
        });
    }

    /** The file handle and OPEN result of {@code name} in the root directory, opened for {@code shareAccess}. */
    public record Opened(byte[] fh, OpenResult open) {
    }

    /** §18.16 OPEN (no create, CLAIM_NULL, deny none) of {@code name} in the root directory, then GETFH. */
    public Opened open(String name, int shareAccess, String openOwner) throws Exception {
        byte[] session = sessionId;
        return call(sequenced("open", 3).putRootFh().openNoCreate(shareAccess, Nfs4.OPEN4_SHARE_DENY_NONE, clientId,
                openOwner.getBytes(StandardCharsets.US_ASCII), name).getFh(), res -> {
            CompoundResults c = new CompoundResults(res);
            lastStatusFlags = c.sequence(session);
            c.statusOnly(Nfs4.OP_PUTROOTFH);
            OpenResult open = c.open();
            return new Opened(c.getFh(), open);
        });
    }

    /** §18.2 CLOSE. */
    public void close(byte[] fh, Stateid stateid) throws Exception {
        byte[] session = sessionId;
        call(sequenced("close", 2).putFh(fh).close(stateid), res -> {
            CompoundResults c = new CompoundResults(res);
            lastStatusFlags = c.sequence(session);
            c.statusOnly(Nfs4.OP_PUTFH);
            c.close();
            return null;
        });
    }

    /** §18.6 DELEGRETURN. */
    public void delegReturn(byte[] fh, Stateid delegation) throws Exception {
        byte[] session = sessionId;
        call(sequenced("delegreturn", 2).putFh(fh).delegReturn(delegation), res -> {
            CompoundResults c = new CompoundResults(res);
            lastStatusFlags = c.sequence(session);
            c.statusOnly(Nfs4.OP_PUTFH);
            c.statusOnly(Nfs4.OP_DELEGRETURN);
            return null;
        });
    }

    /** §18.37 DESTROY_SESSION, alone in its COMPOUND (§18.37.3 allows it without SEQUENCE). */
    public void destroySession() throws Exception {
        call(compound("destroy_session", 1).destroySession(sessionId), res -> {
            new CompoundResults(res).statusOnly(Nfs4.OP_DESTROY_SESSION);
            return null;
        });
    }

    /** §18.50 DESTROY_CLIENTID, alone in its COMPOUND (after the client's sessions are gone). */
    public void destroyClientId() throws Exception {
        call(compound("destroy_clientid", 1).destroyClientId(clientId), res -> {
            new CompoundResults(res).statusOnly(Nfs4.OP_DESTROY_CLIENTID);
            return null;
        });
    }
}
