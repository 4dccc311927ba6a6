package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.RpcWire;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.AuthFlavor;
import dev.rpcrdma.oncrpc.message.AuthStat;
import dev.rpcrdma.oncrpc.message.InboundRpcMessage;
import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.OutboundRpcMessage;
import dev.rpcrdma.oncrpc.message.RejectStat;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.tcp.TcpRpcServerInitializer;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The dispatcher's security-flavor hook with a stand-in flavor (AUTH_DH's number): each verdict (drop, deny,
 * answer, accept with unwrapped arguments) and the reply protected through {@link RpcCallAuth}.
 */
class RpcAuthenticatorTest {

    private static final int PROG = 0x2004F0A1;
    private static final OpaqueAuth VERIFIER = OpaqueAuth.of(AuthFlavor.AUTH_DH, new byte[] {'v', 'e', 'r', 'f'});

    private final List<String> seen = new ArrayList<>();
    private final List<ByteBuf> unwrapped = new ArrayList<>();
    private EmbeddedChannel ch;

    /** Decides by the first byte of the credential body; ACCEPT passes the argument int + 1 as new arguments. */
    private final class StandIn implements RpcAuthenticator {
        @Override
        public AuthFlavor flavor() {
            return AuthFlavor.AUTH_DH;
        }

        @Override
        public RpcAuthVerdict authenticate(Channel channel, RpcCall call, InboundRpcMessage message) {
            switch (call.credential().body()[0]) {
                case 0:
                    return RpcAuthVerdict.drop();
                case 1:
                    return RpcAuthVerdict.deny(AuthStat.AUTH_TOOWEAK);
                case 2:
                    return RpcAuthVerdict.answer(OutboundRpcMessage.newReply(call.xid(), VERIFIER,
                            AcceptStat.GARBAGE_ARGS, XdrPayload.empty()));
                default:
                    try {
                        ByteBuf args = Unpooled.buffer().writeInt(message.body().readInt() + 1);
                        unwrapped.add(args);
                        return RpcAuthVerdict.accept(new Auth(), args);
                    } catch (XdrException e) {
                        return RpcAuthVerdict.deny(AuthStat.AUTH_BADCRED);
                    }
            }
        }
    }

    /** Adds the verifier, and the results' length after them. */
    private static final class Auth implements RpcCallAuth {
        @Override
        public AuthFlavor flavor() {
            return AuthFlavor.AUTH_DH;
        }

        @Override
        public RpcProtection protection() {
            return RpcProtection.INTEGRITY;
        }

        @Override
        public String principal() {
            return "someone@REALM";
        }

        @Override
        public Object identity() {
            return "uid 1000";
        }

        @Override
        public OutboundRpcMessage protect(int xid, AcceptStat stat, XdrPayload results, ByteBufAllocator alloc) {
            if (AcceptStat.SUCCESS.equals(stat)) {
                XdrPayload trailer = XdrPayload.newPayload(alloc);
                trailer.writer().writeInt(results.inlineLength());
                results = XdrPayload.concat(results, trailer);
            }
            return OutboundRpcMessage.newReply(xid, VERIFIER, stat, results);
        }

        @Override
        public RpcReply protect(RpcReply reply) {
            return reply.withVerifier(VERIFIER);
        }
    }

    @BeforeEach
    void setUp() {
        RpcProgramRegistry registry = new RpcProgramRegistry()
                .registerNull(PROG, 1)
                .register(PROG, 1, 1, (call, args) -> {
                    seen.add(call.flavor() + " " + call.protection() + " " + call.identity() + " "
                            + call.auth().principal());
                    XdrPayload results = call.newPayload();
                    results.writer().writeInt(args.readInt());
                    call.replySuccess(results);
                })
                .register(PROG, 1, 2, (call, args) -> call.replyError(AcceptStat.SYSTEM_ERR));
        ch = new EmbeddedChannel(new TcpRpcServerInitializer(new RpcDispatcher(registry, new RpcStats())
                .withAuthenticator(new StandIn())));
    }

    @AfterEach
    void tearDown() {
        ch.finishAndReleaseAll();
    }

    private static ByteBuf call(int xid, int proc, int verdict, int arg) {
        ByteBuf b = Unpooled.buffer();
        new XdrWriter(b).writeInt(xid).writeInt(0).writeInt(2).writeInt(PROG).writeInt(1).writeInt(proc)
                .writeInt(AuthFlavor.AUTH_DH.intValue()).writeOpaque(new byte[] {(byte) verdict})
                .writeInt(0).writeInt(0).writeInt(arg);
        return b;
    }

    private InboundRpcMessage send(ByteBuf call) throws XdrException {
        ch.writeInbound(RpcWire.record(call));
        return RpcWire.readReply(ch);
    }

    @Test
    void dropAnswersNothing() throws XdrException {
        assertNull(send(call(1, 1, 0, 7)));
        assertEquals(List.of(), seen);
    }

    @Test
    void denyIsAnAuthError() throws XdrException {
        InboundRpcMessage m = send(call(2, 1, 1, 7));
        try {
            RpcReply reply = (RpcReply) m.header();
            assertEquals(RejectStat.AUTH_ERROR, reply.rejectStat());
            assertEquals(AuthStat.AUTH_TOOWEAK, reply.authStat());
        } finally {
            m.release();
        }
    }

    @Test
    void answerIsSentAsIs() throws XdrException {
        InboundRpcMessage m = send(call(3, 1, 2, 7));
        try {
            RpcReply reply = (RpcReply) m.header();
            assertEquals(AcceptStat.GARBAGE_ARGS, reply.acceptStat());
            assertEquals(VERIFIER, reply.verifier());
        } finally {
            m.release();
        }
        assertEquals(List.of(), seen);
    }

    @Test
    void acceptedCallsReadTheUnwrappedArgumentsAndTheirRepliesAreProtected() throws XdrException {
        InboundRpcMessage m = send(call(4, 1, 3, 41));
        try {
            RpcReply reply = (RpcReply) m.header();
            assertEquals(AcceptStat.SUCCESS, reply.acceptStat());
            assertEquals(VERIFIER, reply.verifier());
            assertEquals(42, m.body().readInt(), "the procedure read the unwrapped arguments");
            assertEquals(4, m.body().readInt(), "the results went through RpcCallAuth.protect");
        } finally {
            m.release();
        }
        assertEquals(List.of("AUTH_DH INTEGRITY uid 1000 someone@REALM"), seen);
        assertEquals(0, unwrapped.get(0).refCnt(), "the dispatcher released the unwrapped arguments");
    }

    @Test
    void errorsAndTheNullProcedureCarryTheVerifierToo() throws XdrException {
        for (int proc : new int[] {0, 2}) {
            InboundRpcMessage m = send(call(5 + proc, proc, 3, 0));
            assertNotNull(m);
            try {
                RpcReply reply = (RpcReply) m.header();
                assertEquals(proc == 0 ? AcceptStat.SUCCESS : AcceptStat.SYSTEM_ERR, reply.acceptStat());
                assertEquals(VERIFIER, reply.verifier());
            } finally {
                m.release();
            }
        }
    }
}
