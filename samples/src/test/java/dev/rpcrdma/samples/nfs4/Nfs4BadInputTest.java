package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.client.RpcReplyException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Bad input gets the NFSv4.1 error RFC 5661 prescribes, never an exception on the event loop: unknown and
 * unsupported operations, bad stateids and handles, slot and sequence errors, the reply cache, over-long and
 * oversized compounds, undecodable arguments, misplaced session operations.
 */
class Nfs4BadInputTest {
    Nfs4Server server;
    EventLoopGroup group;
    Nfs4TestClient c;

    @BeforeEach
    void start() throws Exception {
        server = Nfs4Server.start("--port", "0", "--address", "127.0.0.1");
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        c = Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1", server.tcpAddress().getPort()), "bad");
        c.mount();
    }

    @AfterEach
    void stop() throws Exception {
        // The connection survived everything: one more ordinary compound works.
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh());
        assertEquals(0, r.status);
        c.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        server.close();
    }

    @Test
    void unknownOperationIsIllegalAndAnUnimplementedOneNotsupp() throws Exception {
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().op(99));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_OP_ILLEGAL, r.next(Nfs4.OP_ILLEGAL));
        assertEquals(Nfs4.NFS4ERR_OP_ILLEGAL, r.status);
        assertEquals(3, r.count);
        r = c.call(c.sequenced().putrootfh().op(12)); // LOCK
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_NOTSUPP, r.next(12));
    }

    @Test
    void badStateidAndBadHandle() throws Exception {
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "f")
                .getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] stateid = r.open()[0];
        byte[] fh = r.fh();
        byte[] bogus = stateid.clone();
        bogus[15] ^= 0x55;
        r = c.call(c.sequenced().putfh(fh).read(bogus, 0, 10));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        assertEquals(Nfs4.NFS4ERR_BAD_STATEID, r.next(Nfs4.OP_READ));
        byte[] future = stateid.clone();
        future[3] += 5;
        r = c.call(c.sequenced().putfh(fh).read(future, 0, 10));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        assertEquals(Nfs4.NFS4ERR_BAD_STATEID, r.next(Nfs4.OP_READ));
        r = c.call(c.sequenced().putfh(new byte[] {1, 2, 3}));
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_BADHANDLE, r.next(Nfs4.OP_PUTFH));
        r = c.call(c.sequenced().getfh());
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_NOFILEHANDLE, r.next(Nfs4.OP_GETFH));
        r = c.call(c.sequenced().putfh(fh).stateidOp(Nfs4.OP_DELEGRETURN, stateid));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        assertEquals(Nfs4.NFS4ERR_BAD_STATEID, r.next(Nfs4.OP_DELEGRETURN), "an open stateid is no delegation");
    }

    @Test
    void slotAndSequenceErrors() throws Exception {
        Nfs4TestClient.Reply r = c.call(c.sequence(c.sessionId, 1, 100, false));
        assertEquals(Nfs4.NFS4ERR_BADSLOT, r.next(Nfs4.OP_SEQUENCE));
        r = c.call(c.sequence(c.sessionId, c.slotSeq + 2, 0, false));
        assertEquals(Nfs4.NFS4ERR_SEQ_MISORDERED, r.next(Nfs4.OP_SEQUENCE));
        byte[] unknown = c.sessionId.clone();
        unknown[0] ^= 1;
        r = c.call(c.sequence(unknown, 1, 0, false));
        assertEquals(Nfs4.NFS4ERR_BADSESSION, r.next(Nfs4.OP_SEQUENCE));
        r = c.call(c.sequenced().op(Nfs4.OP_SEQUENCE));
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_SEQUENCE_POS, r.next(Nfs4.OP_SEQUENCE));
    }

    @Test
    void retransmissionIsAnsweredFromTheReplyCache() throws Exception {
        int seq = ++c.slotSeq;
        byte[] first = c.callRaw(c.sequence(c.sessionId, seq, 0, true).putrootfh().getfh());
        byte[] again = c.callRaw(c.sequence(c.sessionId, seq, 0, true).putrootfh().getfh());
        assertArrayEquals(first, again, "the cached reply, byte for byte");
        seq = ++c.slotSeq;
        c.callRaw(c.sequence(c.sessionId, seq, 0, false).putrootfh());
        Nfs4TestClient.Reply r = c.call(c.sequence(c.sessionId, seq, 0, false).putrootfh());
        assertEquals(Nfs4.NFS4ERR_RETRY_UNCACHED_REP, r.next(Nfs4.OP_SEQUENCE));
    }

    @Test
    void compoundsOverTheSessionLimits() throws Exception {
        // ca_maxoperations is 8 for this session: 9 operations are too many.
        Nfs4TestClient.Compound nine = c.sequenced();
        for (int i = 0; i < 8; i++) {
            nine.putrootfh();
        }
        Nfs4TestClient.Reply r = c.call(nine);
        assertEquals(Nfs4.NFS4ERR_TOO_MANY_OPS, r.next(Nfs4.OP_SEQUENCE));
        assertEquals(1, r.count);
        c.slotSeq--; // the slot did not advance
        // Past what any compound may hold, before any session is looked at.
        Nfs4TestClient.Compound huge = c.sequenced();
        huge.count = 100_000;
        r = c.call(huge);
        assertEquals(Nfs4.NFS4ERR_TOO_MANY_OPS, r.status);
        assertEquals(0, r.count);
        c.slotSeq--;
        // A session with a 1 KiB ca_maxrequestsize: a 2 KiB WRITE is REQ_TOO_BIG.
        c.createSession(true, 8, 1024);
        r = c.call(c.sequenced().putrootfh().write(new byte[16], 0, new byte[2000], Nfs4.UNSTABLE4));
        assertEquals(Nfs4.NFS4ERR_REQ_TOO_BIG, r.next(Nfs4.OP_SEQUENCE));
        c.slotSeq--;
    }

    @Test
    void undecodableArgumentsAreBadxdr() throws Exception {
        Nfs4TestClient.Compound truncated = c.sequenced().op(Nfs4.OP_PUTFH);
        truncated.w.writeInt(100); // a 100-byte handle that is not there
        Nfs4TestClient.Reply r = c.call(truncated);
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_BADXDR, r.next(Nfs4.OP_PUTFH));
        // One operation announced, none there: BADXDR in place of the operation.
        Nfs4TestClient.Compound missing = new Nfs4TestClient.Compound();
        missing.count = 1;
        r = c.call(missing);
        assertEquals(Nfs4.NFS4ERR_BADXDR, r.next(Nfs4.OP_ILLEGAL));
        // A header that does not decode at all (a 5000-byte tag): GARBAGE_ARGS from the dispatcher.
        dev.rpcrdma.oncrpc.xdr.XdrPayload garbage = c.rpc.newPayload();
        garbage.writer().writeInt(5000).writeInt(1);
        assertThrows(RpcReplyException.class, () -> c.rpc.callAndWait(Nfs4.PROGRAM, Nfs4.VERSION,
                Nfs4.PROC_COMPOUND, garbage, rr -> null, Nfs4TestClient.OPTIONS));
    }

    @Test
    void sessionRulesAndMinorVersion() throws Exception {
        Nfs4TestClient.Reply r = c.call(new Nfs4TestClient.Compound().putrootfh());
        assertEquals(Nfs4.NFS4ERR_OP_NOT_IN_SESSION, r.next(Nfs4.OP_PUTROOTFH));
        Nfs4TestClient.Compound two = new Nfs4TestClient.Compound().op(Nfs4.OP_DESTROY_CLIENTID);
        two.w.writeHyper(c.clientid);
        r = c.call(two.putrootfh());
        assertEquals(Nfs4.NFS4ERR_NOT_ONLY_OP, r.next(Nfs4.OP_DESTROY_CLIENTID));
        Nfs4TestClient.Compound v2 = new Nfs4TestClient.Compound().putrootfh();
        v2.minor = 2;
        r = c.call(v2);
        assertEquals(Nfs4.NFS4ERR_MINOR_VERS_MISMATCH, r.status);
        assertEquals(0, r.count);
        Nfs4TestClient.Compound busy = new Nfs4TestClient.Compound().op(Nfs4.OP_DESTROY_CLIENTID);
        busy.w.writeHyper(c.clientid);
        assertEquals(Nfs4.NFS4ERR_CLIENTID_BUSY, c.call(busy).next(Nfs4.OP_DESTROY_CLIENTID));
    }
}
