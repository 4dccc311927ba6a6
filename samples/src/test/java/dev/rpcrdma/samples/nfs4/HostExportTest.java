package dev.rpcrdma.samples.nfs4;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server exporting a host directory ({@code --export}): what the client writes lands in the directory. */
class HostExportTest {
    @TempDir
    Path dir;

    @Test
    void writesLandInTheExportedDirectoryAndReadBack() throws Exception {
        Files.writeString(dir.resolve("existing"), "hello from the host");
        Nfs4Server server = Nfs4Server.start("--port", "0", "--address", "127.0.0.1", "--export", dir.toString());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (Nfs4TestClient c = Nfs4TestClient.connect(group, new InetSocketAddress("127.0.0.1",
                server.tcpAddress().getPort()), "host")) {
            c.mount();
            Nfs4TestClient.Reply r = c.call(c.sequenced().putrootfh().open("o", Nfs4.OPEN4_SHARE_ACCESS_READ, false,
                    "existing").getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH);
            byte[] state = r.open()[0];
            byte[] fh = r.fh();
            r = c.call(c.sequenced().putfh(fh).read(state, 0, 1000));
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTFH).ok(Nfs4.OP_READ);
            assertTrue(r.in.readBool());
            assertEquals("hello from the host", new String(r.in.readOpaque(1000)));

            byte[] data = Nfs4ServerTest.pattern(200_000, 3);
            r = c.call(c.sequenced().putrootfh().mkdir("sub").open("o", Nfs4.OPEN4_SHARE_ACCESS_BOTH, true, "new")
                    .getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_CREATE);
            r.in.readBool();
            r.in.readHyper();
            r.in.readHyper();
            Attributes.readBitmap(r.in);
            byte[] created = r.open()[0];
            byte[] newFh = r.fh();
            r = c.call(c.sequenced().putfh(newFh).write(created, 0, data, Nfs4.FILE_SYNC4).close(created));
            assertEquals(0, r.status);
            assertArrayEquals(data, Files.readAllBytes(dir.resolve("sub/new")));
            Nfs4TestClient.Compound rename = c.sequenced().putrootfh().lookup("sub").op(Nfs4.OP_SAVEFH);
            rename.op(Nfs4.OP_RENAME).w.writeString("new").writeString("renamed");
            assertEquals(0, c.call(rename).status);
            assertTrue(Files.exists(dir.resolve("sub/renamed")));
            r = c.call(c.sequenced().putrootfh().lookup("sub").lookup("renamed").getfh());
            r.sequenceFlags();
            r.ok(Nfs4.OP_PUTROOTFH).ok(Nfs4.OP_LOOKUP).ok(Nfs4.OP_LOOKUP);
            assertArrayEquals(newFh, r.fh(), "inode-based handles survive a rename");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            server.close();
        }
    }
}
