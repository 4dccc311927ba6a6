package dev.rpcrdma.oncrpc.gss;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RpcMessageCodec;
import dev.rpcrdma.oncrpc.server.RpcDispatcher;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.testing.BoundedAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jazzer fuzz targets for the RPCSEC_GSS decoders that read untrusted bytes: the credential ({@code rpc_gss_cred_t},
 * RFC 2203 §5), the INIT result a client reads ({@code rpc_gss_init_res}), and the server's authenticator behind a
 * dispatcher (credential, verifier and INIT token, through the JDK's token parser). Plain {@code mvn test} replays
 * the seeds under {@code src/test/resources/.../RpcGssFuzzTestInputs/<target>/} (written by tools/fuzz/seeds.py);
 * {@code tools/fuzz/run <target>} fuzzes one. Invariants: only {@link XdrException} escapes a decoder, every
 * length stays within its bound, the authenticator answers at most once and never throws into the pipeline, no
 * buffer leaks and none is allocated above a bound derived from the input.
 */
class RpcGssFuzzTest {

    /** A credential body (at most 400 bytes, as the RPC decoder guarantees): decoded, or refused. */
    @FuzzTest(maxDuration = "10s")
    void gssCredential(byte[] data) {
        if (data.length > OpaqueAuth.MAX_BODY) {
            return;
        }
        RpcGssCred cred;
        try {
            cred = RpcGssCred.decode(data);
        } catch (XdrException expected) {
            return;
        }
        assertTrue(cred.handle.length <= OpaqueAuth.MAX_BODY - 20);
        // What decodes re-encodes to a credential that decodes to the same fields.
        OpaqueAuth again = cred.toOpaqueAuth();
        assertEquals(data.length, again.bodyLength());
        try {
            RpcGssCred back = RpcGssCred.decode(again.body());
            assertEquals(cred.proc, back.proc);
            assertEquals(cred.seq, back.seq);
            assertEquals(cred.service, back.service);
            assertTrue(java.util.Arrays.equals(cred.handle, back.handle));
        } catch (XdrException e) {
            throw new AssertionError("a re-encoded credential does not decode", e);
        }
    }

    /** An INIT result as the client reads it, the token bounded at 4 KiB. */
    @FuzzTest(maxDuration = "10s")
    void gssInitResult(byte[] data) {
        ByteBuf in = Unpooled.wrappedBuffer(data);
        try {
            RpcGssInitRes res = RpcGssInitRes.decode(new XdrReader(in), 4096);
            assertTrue(res.token.length <= 4096 && res.handle.length <= data.length);
        } catch (XdrException expected) {
            // Refused.
        } finally {
            in.release();
        }
    }

    /**
     * One RPC record through a dispatcher with an {@link RpcGssAuthenticator} (no acceptor credential: every
     * well-formed INIT token fails in the mechanism): at most one reply, nothing thrown, nothing leaked.
     */
    @FuzzTest(maxDuration = "10s")
    void gssAuthenticator(byte[] data) {
        BoundedAllocator alloc = new BoundedAllocator(Math.max(4096, 2 * data.length));
        ByteBuf record = alloc.directBuffer(data.length).writeBytes(data);
        InboundRpcMessage message;
        try {
            message = RpcMessageCodec.decode(record);
        } catch (XdrException expected) {
            return;
        }
        RpcGssAuthenticator gss = new RpcGssAuthenticator(null);
        RpcDispatcher dispatcher = new RpcDispatcher(new RpcProgramRegistry().registerNull(1, 1), new RpcStats())
                .withAuthenticator(gss);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(dispatcher);
        try {
            ch.writeInbound(message);
            ch.checkException();
            Object reply = ch.readOutbound();
            try {
                assertTrue(reply == null || reply instanceof OutboundRpcMessage);
                assertNull(ch.readOutbound(), "at most one answer");
            } finally {
                ReferenceCountUtil.release(reply);
            }
            assertEquals(0, gss.contexts(), "no context without an acceptor credential");
        } finally {
            ch.finishAndReleaseAll();
        }
        assertEquals(0, alloc.oversizedRequests());
    }
}
