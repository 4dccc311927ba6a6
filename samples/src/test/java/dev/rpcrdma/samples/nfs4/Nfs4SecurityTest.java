package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.gss.Krb5Credentials;
import dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator;
import dev.rpcrdma.oncrpc.gss.RpcGssClientContext;
import dev.rpcrdma.oncrpc.gss.RpcGssService;
import dev.rpcrdma.testing.Krb5Realm;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.rpcrdma.samples.nfs4.Nfs4CommandTest.assertOneLineError;
import static dev.rpcrdma.samples.nfs4.Nfs4CommandTest.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The NFS server's {@code --sec} against a throwaway MIT KDC ({@link Krb5Realm}): an export that requires krb5i or
 * krb5p answers AUTH_SYS with NFS4ERR_WRONGSEC where RFC 5661 §2.6.3.1 says (and only there), SECINFO and
 * SECINFO_NO_NAME list its flavors (§18.29, §18.45), krb5i and krb5p clients do file I/O, FREE_STATEID of an open
 * stateid is LOCKS_HELD (§18.38.3), callbacks carry the RPCSEC_GSS handle the client offered (§2.10.8.2), and the
 * options are checked.
 */
class Nfs4SecurityTest {
    private static Krb5Realm realm;
    private static Path serverKeytab;
    private static GSSCredential root;
    private static GSSName target;

    Nfs4Server server;
    EventLoopGroup group;
    /** The server's RPC-over-RDMA address when a test moved it to the software fabric, else null (TCP). */
    InetSocketAddress rdma;
    final List<Nfs4TestClient> clients = new ArrayList<>();

    @BeforeAll
    static void realm() throws Exception {
        realm = Krb5Realm.start();
        serverKeytab = realm.addPrincipal("nfs/localhost");
        root = Krb5Credentials.initiator(Krb5Realm.name("root"), realm.addPrincipal("root"));
        target = Krb5Credentials.principalName(Krb5Realm.name("nfs/localhost"));
    }

    @AfterAll
    static void stopRealm() {
        if (realm != null) {
            realm.close();
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = Nfs4Server.start("--port", "0", "--address", "127.0.0.1", "--sec", "krb5i,krb5p",
                "--keytab", serverKeytab.toString(), "--principal", Krb5Realm.name("nfs/localhost"));
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
        Nfs4TestClient c = rdma != null ? Nfs4TestClient.connectRdma(group, rdma, owner)
                : Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1", server.tcpAddress().getPort()),
                owner);
        clients.add(c);
        return c;
    }

    /** A client whose calls all carry a new RPCSEC_GSS context of {@code service} (the root principal). */
    Nfs4TestClient gssClient(String owner, RpcGssService service) throws Exception {
        Nfs4TestClient c = client(owner);
        RpcGssClientContext context = RpcGssClientContext.establish(c.rpc, Nfs4.PROGRAM, Nfs4.VERSION, root,
                target, service);
        CallOptions options = context.callOptions().withTimeout(Duration.ofSeconds(30));
        c.options = options;
        return c;
    }

    /** The secinfo4 list of a SECINFO or SECINFO_NO_NAME result: krb5i then krb5p, Kerberos V5 OID, QOP 0. */
    static void assertKrb5iKrb5p(Nfs4TestClient.Reply r) throws Exception {
        assertEquals(2, r.in.readInt());
        for (RpcGssService s : new RpcGssService[] {RpcGssService.INTEGRITY, RpcGssService.PRIVACY}) {
            assertEquals(6, r.in.readInt(), "RPCSEC_GSS");
            assertArrayEquals(ExportSecurity.KRB5_OID, r.in.readOpaque(64));
            assertEquals(0, r.in.readInt(), "qop");
            assertEquals(s.intValue(), r.in.readInt(), "service");
        }
    }

    @Test
    void authSysGetsWrongSecWhereRfc5661SaysAndSecinfoListsTheFlavors() throws Exception {
        Nfs4TestClient c = client("sys-client");
        c.mount();   // EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE: no file handle, no WRONGSEC

        // §2.6.3.1.1.7: put filehandle + anything else: the put filehandle operation answers WRONGSEC.
        Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().getfh());
        assertEquals(Nfs4.NFS4ERR_WRONGSEC, r.status);
        assertEquals(2, r.count);
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_WRONGSEC, r.next(Nfs4.OP_PUTROOTFH));
        // §2.6.3.1.1.1: SAVEFH does not count; the put filehandle operation still answers.
        r = c.call(c.sequenced().putrootfh().op(Nfs4.OP_SAVEFH).getfh());
        assertEquals(2, r.count);
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_WRONGSEC, r.next(Nfs4.OP_PUTROOTFH));
        // §2.6.3.1.1.2: of two put filehandle operations only the last can answer WRONGSEC.
        r = c.call(c.sequenced().putrootfh().putrootfh().getfh());
        assertEquals(3, r.count);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_WRONGSEC, r.next(Nfs4.OP_PUTROOTFH));
        // §2.6.3.1.1.6: put filehandle + nothing.
        r = c.call(c.sequenced().putrootfh());
        assertEquals(Nfs4.NFS4_OK, r.status);
        // §2.6.3.1.1.5: put filehandle + SECINFO_NO_NAME: both succeed; the list is the export's.
        r = c.call(c.sequenced().putrootfh().op(Nfs4.OP_SECINFO_NO_NAME).bool(false));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_SECINFO_NO_NAME);
        assertKrb5iKrb5p(r);
        // §2.6.3.1.1.3: put filehandle + LOOKUP: LOOKUP answers.
        r = c.call(c.sequenced().putrootfh().lookup("anything"));
        assertEquals(3, r.count);
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_WRONGSEC, r.next(Nfs4.OP_LOOKUP));
        // §2.6.3.1.1.8: SECINFO_NO_NAME consumed the file handle: what follows has none (not WRONGSEC).
        r = c.call(c.sequenced().putrootfh().op(Nfs4.OP_SECINFO_NO_NAME).bool(false).getfh());
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_SECINFO_NO_NAME);
        assertKrb5iKrb5p(r);
        assertEquals(Nfs4.NFS4ERR_NOFILEHANDLE, r.next(Nfs4.OP_GETFH));
        assertEquals(4, server.wrongSec());
    }

    @Test
    void krb5iAndKrb5pClientsWriteAndReadAndKrb5IsRefused() throws Exception {
        for (RpcGssService service : new RpcGssService[] {RpcGssService.INTEGRITY, RpcGssService.PRIVACY}) {
            Nfs4TestClient c = gssClient("gss-client-" + service, service);
            c.mount();
            Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH);
            byte[] rootFh = r.fh();
            String name = "file-" + service;
            r = c.call(c.sequenced().putfh(rootFh).open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, name).getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH);
            byte[] open = r.open()[0];
            byte[] fh = r.fh();
            byte[] data = Nfs4ServerTest.pattern(300_000, service.intValue());
            r = c.call(c.sequenced().putfh(fh).write(open, 0, data, Nfs4.FILE_SYNC4));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_WRITE);
            assertEquals(data.length, r.in.readInt());
            r = c.call(c.sequenced().putfh(fh).read(open, 0, data.length));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            r.in.readBool();
            assertArrayEquals(data, r.in.readOpaque(data.length));
            // RFC 5661 §18.38.3: an open stateid is not freed: LOCKS_HELD (CLOSE frees it).
            r = c.call(c.sequenced().stateidOp(Nfs4.OP_FREE_STATEID, open));
            r.sequenceFlags();
            assertEquals(Nfs4.NFS4ERR_LOCKS_HELD, r.next(Nfs4.OP_FREE_STATEID));
            r = c.call(c.sequenced().putfh(fh).close(open));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_CLOSE);
            // SECINFO of a name in the current directory (§18.29): the export's list, file handle consumed.
            Nfs4TestClient.Compound secinfo = c.sequenced().putfh(rootFh).op(Nfs4.OP_SECINFO);
            secinfo.w.writeString(name);
            r = c.call(secinfo);
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_SECINFO);
            assertKrb5iKrb5p(r);
        }
        assertEquals(0, server.wrongSec());
        // krb5 (authentication only) is not among the export's flavors.
        Nfs4TestClient krb5 = gssClient("krb5-client", RpcGssService.NONE);
        krb5.mount();
        Nfs4TestClient.Reply r = krb5.call(krb5.sequenced().putrootfh().getfh());
        r.sequenceFlags();
        assertEquals(Nfs4.NFS4ERR_WRONGSEC, r.next(Nfs4.OP_PUTROOTFH));
        assertEquals(1, server.wrongSec());
        assertTrue(server.gss().contexts() >= 3, "contexts: " + server.gss().contexts());
    }

    /**
     * RFC 5661 §2.10.8.2 and §18.36.3: a client that offers an RPCSEC_GSS context for callbacks (gss_cb_handles4)
     * gets CB_RECALL under that context, with its back handle and the service it chose; a handle the server never
     * made is NOENT.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp", "rdma"})
    void callbacksCarryTheRpcsecGssHandleTheClientOffered(String transport) throws Exception {
        RpcGssAuthenticator callbacks = RpcGssAuthenticator.forCallbacks();
        Nfs4TestClient a;
        if (transport.equals("rdma")) {
            // RPC-over-RDMA on the software fabric: the callbacks go over the RDMA backchannel (RFC 8167).
            server.close();
            server = Nfs4Server.start("--transport", "rdma", "--rdma-port", "0", "--address", "127.0.0.1",
                    "--fabric", "software", "--sec", "krb5i,krb5p", "--keytab", serverKeytab.toString(),
                    "--principal", Krb5Realm.name("nfs/localhost"));
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            group = new MultiThreadIoEventLoopGroup(2, dev.rpcrdma.channel.RdmaIoHandler.newFactory(
                    new dev.rpcrdma.channel.RdmaIoHandlerConfig().fabric(
                            dev.rpcrdma.channel.fabric.software.SoftwareFabric.instance())));
            rdma = new InetSocketAddress("127.0.0.1", server.rdmaAddress().getPort());
            a = Nfs4TestClient.connectRdma(group, rdma, "gss-callbacks", callbacks);
        } else {
            a = Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1", server.tcpAddress().getPort()),
                    "gss-callbacks", callbacks);
        }
        clients.add(a);
        callbacksUnderTheClientsContext(a, callbacks, gssClient("gss-writer", RpcGssService.PRIVACY), root, target);
    }

    /**
     * The scenario of {@link #callbacksCarryTheRpcsecGssHandleTheClientOffered}, on any transport (also
     * {@link NativeFabricNfs4GssCallbackTest}'s): {@code a} (connected, its callbacks checked by {@code callbacks})
     * establishes a krb5i context as {@code root}, offers it for callbacks with privacy, holds a read delegation;
     * {@code writer} (a mounted krb5p client) opens the file for write; the recall reaches {@code a} under its
     * context, with its back handle and the service it chose.
     */
    static void callbacksUnderTheClientsContext(Nfs4TestClient a, RpcGssAuthenticator callbacks,
                                                Nfs4TestClient writer, GSSCredential root, GSSName target)
            throws Exception {
        RpcGssClientContext context = RpcGssClientContext.establish(a.rpc, Nfs4.PROGRAM, Nfs4.VERSION, root,
                target, RpcGssService.INTEGRITY);
        a.options = context.callOptions().withTimeout(Duration.ofSeconds(30));
        byte[] back = {0x42, 0x43, 0x44};
        callbacks.acceptCallbacks(context, back);
        a.exchangeId();
        ChannelAttrs fore = new ChannelAttrs(0, (1 << 20) + 8192, (1 << 20) + 8192, 8192, 8, 16);
        ChannelAttrs backAttrs = new ChannelAttrs(0, 4068, 4068, 0, 2, 16);
        int flags = Nfs4.CREATE_SESSION4_FLAG_PERSIST | Nfs4.CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
        // A handle this server did not make: NOENT.
        Nfs4TestClient.Reply r = a.createSession(flags, fore, backAttrs, w -> w.writeInt(1).writeInt(6)
                .writeInt(RpcGssService.PRIVACY.intValue()).writeOpaque(new byte[] {1, 2, 3, 4}).writeOpaque(back));
        assertEquals(Nfs4.NFS4ERR_NOENT, r.createSessionStatus);
        // AUTH_SYS and the context: the context is used, with the service offered (privacy, on a krb5i context).
        r = a.createSession(flags, fore, backAttrs, w -> {
            w.writeInt(2);
            w.writeInt(1).writeInt(0).writeString("test").writeInt(0).writeInt(0).writeInt(0);
            w.writeInt(6).writeInt(RpcGssService.PRIVACY.intValue()).writeOpaque(context.handle()).writeOpaque(back);
        });
        assertEquals(Nfs4.NFS4_OK, r.createSessionStatus);
        r = a.call(a.sequenced().op(Nfs4.OP_RECLAIM_COMPLETE).bool(false));
        r.sequenceFlags();
        r.ok(Nfs4.OP_RECLAIM_COMPLETE);

        r = a.call(a.sequenced().putrootfh().open("a", Nfs4.OPEN4_SHARE_ACCESS_READ, true, "delegated"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        byte[][] open = r.open();
        assertTrue(open[1] != null, "a read delegation");
        Nfs4TestClient b = writer;
        b.mount();
        r = b.call(b.sequenced().putrootfh().open("b", Nfs4.OPEN4_SHARE_ACCESS_WRITE, false, "delegated"));
        r.sequenceFlags();
        r.ok(Nfs4.OP_PUTROOTFH);
        assertEquals(Nfs4.NFS4ERR_DELAY, r.next(Nfs4.OP_OPEN));
        Nfs4TestClient.Recall recall = a.awaitRecall(30);
        assertTrue(recall != null, "CB_RECALL under the client's context");
        assertArrayEquals(open[1], recall.stateid());
        dev.rpcrdma.oncrpc.message.OpaqueAuth cred = a.callbackCredentials.poll();
        assertEquals(dev.rpcrdma.oncrpc.message.AuthFlavor.RPCSEC_GSS, cred.flavor());
        io.netty.buffer.ByteBuf body = io.netty.buffer.Unpooled.wrappedBuffer(cred.body());
        assertEquals(1, body.readInt(), "version");
        assertEquals(0, body.readInt(), "RPCSEC_GSS_DATA");
        body.readInt();
        assertEquals(RpcGssService.PRIVACY.intValue(), body.readInt(), "gcbp_service");
        byte[] handle = new byte[body.readInt()];
        body.readBytes(handle);
        assertArrayEquals(back, handle, "gcbp_handle_from_client");
        assertEquals(0, callbacks.stats().badVerifiers() + callbacks.stats().badBodies()
                + callbacks.stats().unknownHandles(), callbacks.stats().toString());
    }

    @Test
    void secOptionsAreChecked() throws Exception {
        assertOneLineError(run("--port", "0", "--sec", "krb5,krb9"), 2,
                "--sec: a comma list of sys, krb5, krb5i, krb5p, not 'krb9'");
        assertOneLineError(run("--port", "0", "--sec", "sys,sys"), 2, "--sec: sys named twice");
        assertOneLineError(run("--port", "0", "--sec", "krb5"), 2,
                "--sec krb5: needs --keytab FILE and --principal nfs/HOST@REALM");
        assertOneLineError(run("--port", "0", "--keytab", "/etc/krb5.keytab"), 2,
                "--keytab: only with --sec krb5, krb5i or krb5p");
        assertOneLineError(run("--port", "0", "--sec", "krb5p", "--keytab", serverKeytab.toString(),
                "--principal", "nfs/localhost"), 2, "--principal: nfs/HOST@REALM, not nfs/localhost");
        Nfs4CommandTest.CommandRun started = run("--port", "0", "--address", "127.0.0.1", "--sec", "krb5i,krb5p",
                "--keytab", serverKeytab.toString(), "--principal", Krb5Realm.name("nfs/localhost"));
        assertEquals(0, started.code(), started.err());
        assertTrue(started.out().contains("mount -t nfs -o vers=4.1,sec=krb5i,proto=tcp,port="), started.out());
        Path missing = Files.createTempDirectory("nfs4-sec").resolve("none.keytab");
        assertOneLineError(run("--port", "0", "--sec", "krb5p", "--keytab", missing.toString(),
                "--principal", Krb5Realm.name("nfs/localhost")), 2, "--keytab " + missing + ": no such file");
        // A keytab without the principal's key: the server cannot start (exit 1, one line).
        assertOneLineError(run("--port", "0", "--address", "127.0.0.1", "--sec", "krb5p", "--keytab",
                serverKeytab.toString(), "--principal", Krb5Realm.name("nfs/otherhost")), 1,
                "--principal " + Krb5Realm.name("nfs/otherhost") + ": no key in ");
    }
}
