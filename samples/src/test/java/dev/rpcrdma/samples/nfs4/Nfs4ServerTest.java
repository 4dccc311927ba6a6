package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The NFSv4.1 server over TCP with {@link Nfs4TestClient}: a mount-like sequence, file I/O, directories. */
class Nfs4ServerTest {
    Nfs4Server server;
    EventLoopGroup group;
    final List<Nfs4TestClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = Nfs4Server.start("--port", "0", "--address", "127.0.0.1", "--lease", "3", "--threads", "2");
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterEach
    void stop() throws Exception {
        for (Nfs4TestClient c : clients) {
            c.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        server.close();
    }

    Nfs4TestClient client(String owner) throws Exception {
        Nfs4TestClient c = Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1",
                server.tcpAddress().getPort()), owner);
        clients.add(c);
        return c;
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >>> 11));
        }
        return b;
    }

    @Test
    void mountWriteReadBack() throws Exception {
        Nfs4TestClient c = client("mount-client");
        c.rpc.callAndWait(Nfs4.PROGRAM, Nfs4.VERSION, 0, c.rpc.newPayload(), r -> null, Nfs4TestClient.OPTIONS);
        c.mount();
        // PUTROOTFH + SECINFO_NO_NAME, then PUTROOTFH + GETFH + GETATTR as the Linux client does.
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().op(Nfs4.OP_SECINFO_NO_NAME).bool(false));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_SECINFO_NO_NAME);
        assertEquals(1, r.in.readInt());
        assertEquals(1, r.in.readInt());
        r = c.call(c.sequenced().putrootfh().getfh().getattr(Attributes.TYPE, Attributes.FILEID, Attributes.FSID,
                Attributes.SUPPORTED_ATTRS, Attributes.LEASE_TIME, Attributes.OWNER, Attributes.TIME_MODIFY));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] root = r.fh();
        r.ok(Nfs4.OP_GETATTR);
        XdrReader a = r.fattr();
        Attributes.readBitmap(a); // supported_attrs
        assertEquals(Nfs4.NF4DIR, a.readInt());
        a.readHyper();
        a.readHyper(); // fsid
        a.readInt(); // lease
        assertEquals(server.fileSystem().rootId(), a.readHyper());
        assertEquals("0", a.readString(64));

        // Create, write 3 MiB + a bit in 1 MiB WRITEs, read back byte-checked.
        byte[] data = pattern(3 * (1 << 20) + 12345, 7);
        r = c.call(c.sequenced().putfh(root).open("o1", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "file").getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        byte[][] open = r.open();
        assertNull(open[1], "no read delegation on a write open");
        byte[] fh = r.fh();
        for (int off = 0; off < data.length; off += 1 << 20) {
            byte[] chunk = Arrays.copyOfRange(data, off, Math.min(data.length, off + (1 << 20)));
            r = c.call(c.sequenced().putfh(fh).write(open[0], off, chunk, Nfs4.UNSTABLE4));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertEquals(chunk.length, r.in.readInt());
        }
        Nfs4TestClient.Compound commit = c.sequenced().putfh(fh).op(Nfs4.OP_COMMIT);
        commit.w.writeHyper(0).writeInt(0);
        r = c.call(commit.close(open[0]));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_COMMIT);
        r.in.readFixedOpaque(8);
        r.ok(Nfs4.OP_CLOSE);
        r = c.call(c.sequenced().putfh(root).open("o1", Nfs4.OPEN4_SHARE_ACCESS_READ, false, "file"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        byte[] readState = r.open()[0];
        byte[] back = new byte[data.length];
        int got = 0;
        boolean eof = false;
        while (!eof) {
            r = c.call(c.sequenced().putfh(fh).read(readState, got, 1 << 20));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            eof = r.in.readBool();
            byte[] chunk = r.in.readOpaque(1 << 20);
            System.arraycopy(chunk, 0, back, got, chunk.length);
            got += chunk.length;
        }
        assertEquals(data.length, got);
        assertArrayEquals(data, back);
        r = c.call(c.sequenced().putfh(fh).close(readState));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CLOSE);

        // mkdir, rename, remove, lookup of what is gone.
        r = c.call(c.sequenced().putfh(root).mkdir("dir").getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CREATE);
        Nfs4TestClient.Compound rename = c.sequenced().putfh(root).op(Nfs4.OP_SAVEFH).lookup("dir");
        rename.op(Nfs4.OP_RENAME).w.writeString("file").writeString("moved");
        r = c.call(rename);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SAVEFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_RENAME);
        r = c.call(c.sequenced().putfh(root).lookup("dir").lookup("moved").getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_LOOKUP);
        assertArrayEquals(fh, r.fh(), "a rename keeps the file handle");
        r = c.call(c.sequenced().putfh(root).remove("dir"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        assertEquals(Nfs4.NFS4ERR_NOTEMPTY, r.next(Nfs4.OP_REMOVE));
        r = c.call(c.sequenced().putfh(root).lookup("dir").remove("moved").lookupp().remove("dir").lookup("dir"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_REMOVE);
        r.in.readBool();
        r.in.readHyper();
        r.in.readHyper();
        r.ok(Nfs4.OP_LOOKUPP).ok(Nfs4.OP_REMOVE);
        r.in.readBool();
        r.in.readHyper();
        r.in.readHyper();
        assertEquals(Nfs4.NFS4ERR_NOENT, r.next(Nfs4.OP_LOOKUP));
        assertEquals(Nfs4.NFS4ERR_NOENT, r.status);

        // Unmount.
        r = c.call(new Nfs4TestClient.Compound().stateidOp(Nfs4.OP_DESTROY_SESSION, c.sessionId));
        r.ok(Nfs4.OP_DESTROY_SESSION);
        Nfs4TestClient.Compound destroy = new Nfs4TestClient.Compound().op(Nfs4.OP_DESTROY_CLIENTID);
        destroy.w.writeHyper(c.clientid);
        c.call(destroy).ok(Nfs4.OP_DESTROY_CLIENTID);
    }

    @Test
    void readdirOfAThousandFilesAcrossSeveralCalls() throws Exception {
        Nfs4TestClient c = client("readdir-client");
        c.mount();
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().mkdir("big").getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_CREATE);
        r.in.readBool();
        r.in.readHyper();
        r.in.readHyper();
        Attributes.readBitmap(r.in);
        byte[] dir = r.fh();
        for (int i = 0; i < 1000; i += 3) {
            Nfs4TestClient.Compound cc = c.sequenced().putfh(dir);
            for (int j = i; j < Math.min(1000, i + 3); j++) {
                cc.open("creator", Nfs4.OPEN4_SHARE_ACCESS_WRITE, true, "f" + j).putfh(dir);
            }
            r = c.call(cc);
            assertEquals(0, r.status);
        }
        Set<String> names = new HashSet<>();
        long cookie = 0;
        int calls = 0;
        boolean eof = false;
        while (!eof) {
            Nfs4TestClient.Compound cc = c.sequenced().putfh(dir).op(Nfs4.OP_READDIR);
            cc.w.writeHyper(cookie).writeFixedOpaque(new byte[8]).writeInt(8192).writeInt(8192);
            Attributes.writeBitmap(cc.w, Attributes.bitmap(Attributes.TYPE, Attributes.FILEID, Attributes.SIZE));
            r = c.call(cc);
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READDIR);
            r.in.readFixedOpaque(8);
            while (r.in.readBool()) {
                cookie = r.in.readHyper();
                assertTrue(names.add(r.in.readString(255)));
                XdrReader a = r.fattr();
                assertEquals(Nfs4.NF4REG, a.readInt());
            }
            eof = r.in.readBool();
            calls++;
        }
        assertEquals(1000, names.size());
        assertTrue(calls > 3, "several READDIR calls: " + calls);
    }

    @Test
    void readDelegationRecalledWhenAnotherClientOpensForWrite() throws Exception {
        Nfs4TestClient a = client("client-a");
        Nfs4TestClient b = client("client-b");
        a.mount();
        b.mount();
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_WRITE, true,
                "shared").getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] created = r.open()[0];
        byte[] fh = r.fh();
        r = a.call(a.sequenced().putfh(fh).write(created, 0, pattern(5000, 1), Nfs4.FILE_SYNC4).close(created));
        assertEquals(0, r.status);
        r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_READ, false, "shared"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[][] open = r.open();
        assertNotNull(open[1], "A gets a read delegation");

        // B opens for write: DELAY while A is recalled over its backchannel.
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "shared"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_DELAY, r.next(Nfs4.OP_OPEN));
        Nfs4TestClient.Recall recall = a.awaitRecall(10);
        assertNotNull(recall, "A received CB_RECALL");
        assertArrayEquals(open[1], recall.stateid());
        assertArrayEquals(fh, recall.fh());
        assertEquals(1, a.lastCbSeq);
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "shared"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_DELAY, r.next(Nfs4.OP_OPEN), "still DELAY before DELEGRETURN");
        assertNull(a.awaitRecall(0), "recalled once");

        r = a.call(a.sequenced().putfh(fh).stateidOp(Nfs4.OP_DELEGRETURN, recall.stateid()));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_DELEGRETURN);
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "shared"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[][] bOpen = r.open();
        r = b.call(b.sequenced().putfh(fh).write(bOpen[0], 0, pattern(100, 2), Nfs4.FILE_SYNC4));
        assertEquals(0, r.status);
        // A's read open still reads (the data B wrote).
        r = a.call(a.sequenced().putfh(fh).read(open[0], 0, 100));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
        assertFalse(r.in.readBool());
        assertArrayEquals(pattern(100, 2), r.in.readOpaque(100));
    }

    @Test
    void unreturnedDelegationIsRevokedAfterTheLease() throws Exception {
        Nfs4TestClient a = client("client-a");
        Nfs4TestClient b = client("client-b");
        a.mount();
        b.mount();
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_READ, true,
                "f"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] deleg = r.open()[1];
        assertNotNull(deleg);
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "f"));
        assertEquals(Nfs4.NFS4ERR_DELAY, r.status);
        assertNotNull(a.awaitRecall(10));
        // A keeps its lease (SEQUENCE) but never returns the delegation: after a lease it is revoked.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        int status;
        do {
            Thread.sleep(500);
            a.call(a.sequenced()).sequenceFlags();
            status = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "f")).status;
        } while (status == Nfs4.NFS4ERR_DELAY && System.nanoTime() < deadline);
        assertEquals(0, status, "B's open succeeds once the delegation is revoked");
        r = a.call(a.sequenced());
        assertTrue((r.sequenceFlags() & Nfs4.SEQ4_STATUS_RECALLABLE_STATE_REVOKED) != 0);
        Nfs4TestClient.Compound test = a.sequenced().op(Nfs4.OP_TEST_STATEID);
        test.w.writeInt(1).writeFixedOpaque(deleg);
        r = a.call(test);
        r.sequenceFlags();
        r.ok(Nfs4.OP_TEST_STATEID);
        assertEquals(1, r.in.readInt());
        assertEquals(Nfs4.NFS4ERR_DELEG_REVOKED, r.in.readInt());
        r = a.call(a.sequenced().stateidOp(Nfs4.OP_FREE_STATEID, deleg));
        r.sequenceFlags();
        r.ok(Nfs4.OP_FREE_STATEID);
        assertEquals(0, a.call(a.sequenced()).sequenceFlags() & Nfs4.SEQ4_STATUS_RECALLABLE_STATE_REVOKED);
    }

    @Test
    void aClientThatStopsRenewingLosesItsState() throws Exception {
        Nfs4TestClient c = client("sleepy");
        c.mount();
        Thread.sleep(5500); // lease 3 s, checked every second
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh());
        assertEquals(Nfs4.NFS4ERR_BADSESSION, r.status);
    }

    @Test
    void openVariantsShareReservationsDowngradeAndTruncation() throws Exception {
        Nfs4TestClient a = client("open-a");
        Nfs4TestClient b = client("open-b");
        a.mount();
        b.mount();
        byte[] verifier = {1, 2, 3, 4, 5, 6, 7, 8};
        // EXCLUSIVE4_1: created with the verifier; the same create again (a retransmission) succeeds, another
        // verifier gets EXIST; GUARDED4 on an existing name gets EXIST.
        Nfs4TestClient.Reply r = a.call(a.sequenced().putrootfh().openHow("a", Nfs4.OPEN4_SHARE_ACCESS_BOTH,
                Nfs4.OPEN4_SHARE_ACCESS_WRITE, Nfs4.EXCLUSIVE4_1, verifier, "x").getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] first = r.open()[0];
        byte[] fh = r.fh();
        r = a.call(a.sequenced().putrootfh().openHow("a", Nfs4.OPEN4_SHARE_ACCESS_BOTH,
                Nfs4.OPEN4_SHARE_ACCESS_WRITE, Nfs4.EXCLUSIVE4_1, verifier, "x"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[] st = r.open()[0];
        assertEquals(first[3] + 1, st[3], "the same open-owner's second OPEN bumps the stateid's seqid");
        assertEquals(Nfs4.NFS4ERR_EXIST, a.call(a.sequenced().putrootfh().openHow("a",
                Nfs4.OPEN4_SHARE_ACCESS_BOTH, 0, Nfs4.EXCLUSIVE4_1, new byte[8], "x")).status);
        assertEquals(Nfs4.NFS4ERR_EXIST, a.call(a.sequenced().putrootfh().openHow("a",
                Nfs4.OPEN4_SHARE_ACCESS_BOTH, 0, Nfs4.GUARDED4, null, "x")).status);
        // A denies write: B's write open is SHARE_DENIED, its read open (CLAIM_FH) is fine.
        assertEquals(Nfs4.NFS4ERR_SHARE_DENIED, b.call(b.sequenced().putfh(fh).openHow("b",
                Nfs4.OPEN4_SHARE_ACCESS_WRITE, 0, -1, null, null)).status);
        r = b.call(b.sequenced().putfh(fh).openHow("b", Nfs4.OPEN4_SHARE_ACCESS_READ, 0, -1, null, null));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        r.open(); // the same open-owner upgrades this open below (a new seqid)
        // A writes, downgrades to read (deny none), then B may open for write.
        r = a.call(a.sequenced().putfh(fh).write(st, 0, pattern(10_000, 5), Nfs4.FILE_SYNC4));
        assertEquals(0, r.status);
        a.slotSeq++;
        Nfs4TestClient.Compound down = a.sequence(a.sessionId, a.slotSeq, 0, false).putfh(fh)
                .op(Nfs4.OP_OPEN_DOWNGRADE);
        down.w.writeFixedOpaque(st).writeInt(0).writeInt(Nfs4.OPEN4_SHARE_ACCESS_READ).writeInt(0);
        r = a.call(down);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_OPEN_DOWNGRADE);
        byte[] downgraded = r.in.readFixedOpaque(16);
        assertEquals(Nfs4.NFS4ERR_OLD_STATEID, a.call(a.sequenced().putfh(fh).read(st, 0, 10)).status,
                "the stateid before the downgrade is old");
        assertEquals(Nfs4.NFS4ERR_OPENMODE, a.call(a.sequenced().putfh(fh).write(downgraded, 0, new byte[1],
                Nfs4.UNSTABLE4)).status);
        r = b.call(b.sequenced().putfh(fh).openHow("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, 0, -1, null, null));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        byte[] bWrite = r.open()[0];
        // Truncation by SETATTR size with B's open stateid.
        Nfs4TestClient.Compound trunc = b.sequenced().putfh(fh).op(Nfs4.OP_SETATTR);
        trunc.w.writeFixedOpaque(bWrite);
        Attributes.writeBitmap(trunc.w, Attributes.bitmap(Attributes.SIZE));
        trunc.w.writeInt(8).writeHyper(100);
        r = b.call(trunc.getattr(Attributes.SIZE));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SETATTR);
        Attributes.readBitmap(r.in);
        r.ok(Nfs4.OP_GETATTR);
        assertEquals(100, r.fattr().readHyper());
        assertArrayEquals(java.util.Arrays.copyOf(pattern(10_000, 5), 100), b.read(fh, bWrite, 0, 1000));
        // SETATTR with a stateid of another client is BAD_STATEID (and reports an empty attrsset).
        Nfs4TestClient.Compound foreign = a.sequenced().putfh(fh).op(Nfs4.OP_SETATTR);
        foreign.w.writeFixedOpaque(bWrite);
        Attributes.writeBitmap(foreign.w, Attributes.bitmap(Attributes.SIZE));
        foreign.w.writeInt(8).writeHyper(0);
        r = a.call(foreign);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTFH);
        assertEquals(Nfs4.NFS4ERR_BAD_STATEID, r.next(Nfs4.OP_SETATTR));
        assertEquals(0, r.in.readInt(), "attrsset is there, empty");
    }
}
