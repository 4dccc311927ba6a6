package dev.rpcrdma.interop.hadoop;

import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** NFSv3 (RFC 1813) and MOUNT v3 calls hand-encoded with this project's client, as a test needs them. */
final class Nfs3Calls {
    static final int NFS = 100003, MOUNT = 100005, V3 = 3;
    static final long TIMEOUT = 180;

    private final RpcClient client;
    private final CallOptions options;

    Nfs3Calls(RpcClient client) {
        this.client = client;
        this.options = CallOptions.DEFAULT.withCredential(new AuthSysCredential(0, "rdma-test", 0, 0)
                .toOpaqueAuth());
    }

    /** MOUNTPROC3_MNT: the root file handle of {@code path}. */
    byte[] mount(String path) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeString(path);
        return client.call(MOUNT, V3, 1, args, r -> {
            assertEquals(0, r.readInt(), "MNT3 status");
            return r.readOpaque(64);
        }, options).get(TIMEOUT, TimeUnit.SECONDS);
    }

    /** CREATE (UNCHECKED, no attributes): the new file's handle. */
    byte[] create(byte[] dir, String name) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(dir).writeString(name).writeInt(0) // UNCHECKED
                .writeBool(false).writeBool(false).writeBool(false).writeBool(false).writeInt(0).writeInt(0);
        return client.call(NFS, V3, 8, args, r -> {
            assertEquals(0, r.readInt(), "CREATE3 status");
            assertEquals(true, r.readBool(), "post_op_fh3");
            return r.readOpaque(64);
        }, options).get(TIMEOUT, TimeUnit.SECONDS);
    }

    /** WRITE FILE_SYNC; {@code data} as a DDP-eligible item (a Read chunk over RDMA when it does not fit inline). */
    int write(byte[] fh, long offset, ByteBuf data) throws Exception {
        XdrPayload args = client.newPayload();
        int count = data.readableBytes();
        args.writer().writeOpaque(fh).writeHyper(offset).writeInt(count).writeInt(2);
        args.writeDdpOpaque(data);
        return client.call(NFS, V3, 7, args, r -> {
            assertEquals(0, r.readInt(), "WRITE3 status");
            skipWcc(r);
            return r.readInt();
        }, options).get(TIMEOUT, TimeUnit.SECONDS);
    }

    /**
     * WRITE UNSTABLE, asynchronously: the count the server wrote. {@code data} (owned) goes as a DDP-eligible item,
     * as the kernel client streams file data.
     */
    java.util.concurrent.CompletableFuture<Integer> writeUnstable(byte[] fh, long offset, ByteBuf data) {
        XdrPayload args = client.newPayload();
        int count = data.readableBytes();
        args.writer().writeOpaque(fh).writeHyper(offset).writeInt(count).writeInt(0);
        args.writeDdpOpaque(data);
        return client.call(NFS, V3, 7, args, r -> {
            assertEquals(0, r.readInt(), "WRITE3 status");
            skipWcc(r);
            return r.readInt();
        }, options);
    }

    /** COMMIT the whole file, retried after NFS3ERR_JUKEBOX (the gateway still writing) as the kernel does. */
    void commit(byte[] fh) throws Exception {
        for (int attempt = 0; ; attempt++) {
            XdrPayload args = client.newPayload();
            args.writer().writeOpaque(fh).writeHyper(0).writeInt(0);
            int status = client.call(NFS, V3, 21, args, r -> r.readInt(), options).get(TIMEOUT, TimeUnit.SECONDS);
            if (status != 10008 || attempt == 600) {
                assertEquals(0, status, "COMMIT3 status");
                return;
            }
            Thread.sleep(100);
        }
    }

    /** READ with a Write chunk of {@code count} bytes for the data (RFC 8267: READ3resok data is DDP-eligible). */
    byte[] read(byte[] fh, long offset, int count) throws Exception {
        XdrPayload args = client.newPayload();
        args.writer().writeOpaque(fh).writeHyper(offset).writeInt(count);
        return client.call(NFS, V3, 6, args, r -> {
            assertEquals(0, r.readInt(), "READ3 status");
            skipPostOpAttr(r);
            r.readInt();
            r.readBool();
            ByteBuf data = r.readDdpOpaque(count);
            try {
                byte[] out = new byte[data.readableBytes()];
                data.getBytes(data.readerIndex(), out);
                return out;
            } finally {
                data.release();
            }
        }, options.withReplyDdpItems(count).withMaxReplySize(count + 4096)).get(TIMEOUT, TimeUnit.SECONDS);
    }

    /** NULL. */
    void ping() throws Exception {
        client.callNull(NFS, V3).get(TIMEOUT, TimeUnit.SECONDS);
    }

    private static void skipPostOpAttr(XdrReader r) throws dev.rpcrdma.oncrpc.xdr.XdrException {
        if (r.readBool()) {
            r.readFixedOpaque(84);
        }
    }

    private static void skipWcc(XdrReader r) throws dev.rpcrdma.oncrpc.xdr.XdrException {
        if (r.readBool()) {
            r.readFixedOpaque(24);
        }
        skipPostOpAttr(r);
    }
}
