package dev.rpcrdma.benchmarks.tcp;

import org.dcache.oncrpc4j.rpc.OncRpcClient;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** dCache oncrpc4j 3.4.2 (Grizzly NIO): its server and its client. */
final class Oncrpc4jStack implements TcpRpcLoad.Stack {

    /** {@code opaque<>} as an oncrpc4j XDR type. */
    static final class Opaque implements XdrAble {
        byte[] data;

        Opaque() {
        }

        Opaque(byte[] data) {
            this.data = data;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws IOException {
            data = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    private final OncRpcSvc service;
    private final InetSocketAddress address;

    Oncrpc4jStack() throws IOException {
        this(0);
    }

    /** Listening on {@code port} of 127.0.0.1 (0: a free port between 40000 and 60000). */
    Oncrpc4jStack(int port) throws IOException {
        service = new OncRpcSvcBuilder().withTCP().withoutAutoPublish().withBindAddress("127.0.0.1")
                .withMinPort(port == 0 ? 40000 : port).withMaxPort(port == 0 ? 60000 : port).withSameThreadIoStrategy().withSelectorThreadPoolSize(2)
                .withServiceName("bench-oncrpc4j").build();
        service.register(new OncRpcProgram(TcpRpcLoad.PROG, TcpRpcLoad.VERS), call -> {
            if (call.getProcedure() == TcpRpcLoad.PROC_NULL) {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            } else if (call.getProcedure() == TcpRpcLoad.PROC_ECHO) {
                Opaque args = new Opaque();
                call.retrieveCall(args);
                call.reply(args);
            } else {
                call.failProcedureUnavailable();
            }
        });
        service.start();
        address = service.getInetSocketAddress(IpProtocolType.TCP);
    }

    @Override
    public String name() {
        return "oncrpc4j";
    }

    @Override
    public TcpRpcLoad.Caller connect() throws IOException {
        OncRpcClient client = new OncRpcClient(address.getAddress(), IpProtocolType.TCP, address.getPort());
        RpcTransport transport = client.connect();
        RpcCall caller = new RpcCall(TcpRpcLoad.PROG, TcpRpcLoad.VERS, new RpcAuthTypeNone(), transport);
        return new TcpRpcLoad.Caller() {
            @Override
            public void callNull() throws Exception {
                caller.call(TcpRpcLoad.PROC_NULL, XdrVoid.XDR_VOID, XdrVoid.XDR_VOID, 30, TimeUnit.SECONDS);
            }

            @Override
            public byte[] echo(byte[] data) throws Exception {
                Opaque result = new Opaque();
                caller.call(TcpRpcLoad.PROC_ECHO, new Opaque(data), result, 30, TimeUnit.SECONDS);
                return result.data;
            }

            @Override
            public void shutdown() throws IOException {
                client.close();
            }
        };
    }

    @Override
    public void shutdown() throws IOException {
        service.stop();
    }
}
