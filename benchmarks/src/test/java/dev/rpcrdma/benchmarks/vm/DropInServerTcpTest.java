package dev.rpcrdma.benchmarks.vm;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The drop-in servers' TCP forms answer NULL, ECHO and an unknown program over loopback, as a TCP client sees it. */
class DropInServerTcpTest {

    /** An RFC 5531 CALL with AUTH_NONE, record-marked as one last fragment (RFC 5531 §11). */
    private static byte[] call(int xid, int prog, int proc, byte[] opaque) {
        int args = opaque == null ? 0 : 4 + ((opaque.length + 3) & ~3);
        ByteBuffer b = ByteBuffer.allocate(4 + 40 + args);
        b.putInt(0x8000_0000 | (40 + args));
        b.putInt(xid).putInt(0).putInt(2).putInt(prog).putInt(DropInServer.VERS).putInt(proc);
        b.putInt(0).putInt(0).putInt(0).putInt(0);   // AUTH_NONE credential and verifier
        if (opaque != null) {
            b.putInt(opaque.length).put(opaque);
        }
        return b.array();
    }

    /** Reads one whole record (any number of fragments). */
    private static ByteBuffer record(DataInputStream in) throws IOException {
        byte[] all = new byte[0];
        boolean last;
        do {
            int mark = in.readInt();
            last = mark < 0;
            int n = mark & 0x7fff_ffff;
            assertTrue(n <= (1 << 20), "fragment of " + n + " bytes");
            int at = all.length;
            all = Arrays.copyOf(all, at + n);
            in.readFully(all, at, n);
        } while (!last);
        return ByteBuffer.wrap(all);
    }

    /** Checks an accepted reply to {@code xid} with AUTH_NONE and {@code acceptStat}; returns it at the results. */
    private static ByteBuffer reply(DataInputStream in, int xid, int acceptStat) throws IOException {
        ByteBuffer r = record(in);
        assertEquals(xid, r.getInt(), "xid");
        assertEquals(1, r.getInt(), "REPLY");
        assertEquals(0, r.getInt(), "MSG_ACCEPTED");
        assertEquals(0, r.getInt(), "verifier flavor AUTH_NONE");
        int verifier = r.getInt();
        r.position(r.position() + ((verifier + 3) & ~3));
        assertEquals(acceptStat, r.getInt(), "accept_stat");
        return r;
    }

    @ParameterizedTest
    @ValueSource(strings = {"framing-tcp", "bridge-tcp"})
    void answersNullEchoAndAnUnknownProgram(String kind) throws Exception {
        try (DropInServer.Running server = DropInServer.start(kind, new InetSocketAddress("127.0.0.1", 0));
             Socket s = new Socket()) {
            assertTrue(server.transport.contains("tcp"), server.transport);
            s.connect(new InetSocketAddress("127.0.0.1", server.address.getPort()), 10_000);
            s.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());

            out.write(call(101, DropInServer.PROG, DropInServer.PROC_NULL, null));
            out.flush();
            assertEquals(0, reply(in, 101, 0).remaining(), "NULL has no results");

            byte[] data = new byte[1027];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 31 + 7);
            }
            out.write(call(102, DropInServer.PROG, DropInServer.PROC_ECHO, data));
            out.flush();
            ByteBuffer r = reply(in, 102, 0);
            assertEquals(data.length, r.getInt(), "echoed length");
            byte[] echoed = new byte[data.length];
            r.get(echoed);
            assertArrayEquals(data, echoed);
            assertEquals(1, r.remaining(), "XDR padding to 4 bytes");

            // Two calls in one write: each answered, in order (one connection, calls one after the other).
            byte[] a = call(103, DropInServer.PROG, DropInServer.PROC_NULL, null);
            byte[] b = call(104, 0x2004F0FF, DropInServer.PROC_NULL, null);
            byte[] both = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, both, a.length, b.length);
            out.write(both);
            out.flush();
            assertEquals(0, reply(in, 103, 0).remaining());
            reply(in, 104, 1);   // PROG_UNAVAIL
        }
    }
}
