package dev.rpcrdma.samples.callback;

import dev.rpcrdma.channel.RdmaFabric;
import dev.rpcrdma.oncrpc.RpcBackchannel;
import dev.rpcrdma.oncrpc.RpcStats;
import dev.rpcrdma.oncrpc.client.CallOptions;
import dev.rpcrdma.oncrpc.client.RpcClient;
import dev.rpcrdma.oncrpc.client.RpcReplyDecoder;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.samples.echo.EchoCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;

import picocli.CommandLine;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The callback demo: server and client in one JVM (the software fabric reaches only this JVM; on a device, the
 * same two sides talk through it). The client serves the callback program ({@link CallbackProgram}), enables its
 * backchannel and "creates a session" ({@link SessionProgram}); then, for the given time, a client thread makes
 * forward ECHO calls back to back while the server calls the client back on the same connection, alternating
 * CB_NULL and a CB_SEQUENCE + CB_RECALL compound. Prints both directions' latencies and the backchannel counters.
 *
 * <pre>
 *   samples/run-callback-demo [--transport rdma|tcp] [--fabric auto|software|native] [--address A] [--port P]
 *                             [--seconds S]
 * </pre>
 */
public final class CallbackDemo {
    private static final int ECHO_BYTES = 64;
    /** The forward replies are small: declared so, over RDMA they offer no Reply chunk (the default is 1 MiB). */
    private static final CallOptions SMALL_REPLY = CallOptions.DEFAULT.withMaxReplySize(1024);

    private CallbackDemo() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    /** The command line, parsed by picocli. */
    @CommandLine.Command(name = "run-callback-demo", mixinStandardHelpOptions = true, sortOptions = false,
            versionProvider = Version.class,
            description = {"The server calls the client back (CB_NULL, CB_SEQUENCE+CB_RECALL of program 0x40000000)"
                    + " on the connection the client made, while the client's forward calls go on.",
                    "--fabric native needs an RDMA device and --address of its interface (Soft-RoCE: tools/vm/run)."})
    static final class Options {
        @CommandLine.Option(names = "--transport", paramLabel = "rdma|tcp", defaultValue = "rdma",
                description = "transport (default ${DEFAULT-VALUE})")
        String transport;
        @CommandLine.Option(names = "--fabric", paramLabel = "auto|software|native", defaultValue = "auto",
                description = "RDMA fabric; auto on a loopback address is the software fabric (default"
                        + " ${DEFAULT-VALUE})")
        String fabric;
        @CommandLine.Option(names = "--address", paramLabel = "A", defaultValue = "127.0.0.1",
                description = "address the server listens on and the client calls (default ${DEFAULT-VALUE})")
        String address;
        @CommandLine.Option(names = "--port", paramLabel = "P", defaultValue = "0",
                description = "port (default ${DEFAULT-VALUE}: any free port)")
        int port;
        @CommandLine.Option(names = "--seconds", paramLabel = "S", defaultValue = "3",
                description = "how long the calls go on (default ${DEFAULT-VALUE})")
        double seconds;
    }

    /** {@code --version}: the samples' version, Netty's and the JVM's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return EchoCommand.version("run-callback-demo");
        }
    }

    /** Runs the demo; returns the exit status (0: both directions worked, 1: a call failed, 2: usage). */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Options options = new Options();
        CommandLine line = new CommandLine(options);
        PrintWriter writer = new PrintWriter(out, true);
        line.setOut(writer);
        try {
            if (CommandLine.printHelpIfRequested(line.parseArgs(args))) {
                writer.flush();
                return 0;
            }
        } catch (CommandLine.ParameterException e) {
            err.println("run-callback-demo: " + EchoCommand.usageMessage(e));
            return 2;
        }
        String transport = options.transport;
        String fabricName = options.fabric;
        String address = options.address;
        DemoTransport t;
        if ("tcp".equals(transport)) {
            t = DemoTransport.tcp();
        } else if ("rdma".equals(transport)) {
            RdmaFabric fabric;
            switch (fabricName) {
                // auto: the device when there is one and the address is not loopback (no RoCE device answers
                // there); else the in-process fabric, which serves this demo's client in the same JVM.
                case "auto" -> fabric = RdmaFabric.NATIVE.isAvailable() && !address.startsWith("127.")
                        ? RdmaFabric.NATIVE : RdmaFabric.SOFTWARE;
                case "software" -> fabric = RdmaFabric.SOFTWARE;
                case "native" -> {
                    if (!RdmaFabric.NATIVE.isAvailable()) {
                        err.println("run-callback-demo: "
                                + EchoCommand.nativeRefusal("use --transport tcp, or --fabric software"));
                        return 2;
                    }
                    fabric = RdmaFabric.NATIVE;
                }
                default -> {
                    err.println("run-callback-demo: --fabric must be auto, software or native, not " + fabricName);
                    return 2;
                }
            }
            t = DemoTransport.rdma(fabric);
        } else {
            err.println("run-callback-demo: --transport must be rdma or tcp, not " + transport);
            return 2;
        }
        return demo(t, new InetSocketAddress(address, options.port), (long) (options.seconds * 1e9), out);
    }

    static int demo(DemoTransport transport, InetSocketAddress at, long nanos, PrintStream out) throws Exception {
        EventLoopGroup serverGroup = transport.newGroup();
        EventLoopGroup clientGroup = transport.newGroup();
        RpcStats serverStats = new RpcStats();
        RpcStats clientStats = new RpcStats();
        SessionProgram sessions = new SessionProgram();
        CallbackProgram callbacks = new CallbackProgram();
        Channel server = null;
        Channel client = null;
        try {
            out.println("transport: " + transport.description());
            server = transport.startServer(serverGroup, sessions.dispatcher(serverStats), at);
            client = transport.connect(clientGroup, (InetSocketAddress) server.localAddress(), clientStats,
                    callbacks.dispatcher(clientStats));
            out.println("client " + client.localAddress() + " connected to server " + server.localAddress());
            RpcBackchannel mine = RpcBackchannel.of(client).enable();
            RpcClient fore = RpcClient.of(client);
            int serverLimit = fore.call(SessionProgram.PROGRAM, SessionProgram.VERSION, SessionProgram.CREATE_SESSION,
                    fore.newPayload(), r -> r.readInt(), SMALL_REPLY).get(10, TimeUnit.SECONDS);
            Channel serverSide = sessions.sessions().get(10, TimeUnit.SECONDS);
            out.println("session created with the backchannel enabled on both sides: the largest backward message is "
                    + mine.maxMessageSize() + " B (client) / " + serverLimit + " B (server)");

            Latencies forward = new Latencies();
            AtomicBoolean stop = new AtomicBoolean();
            Thread forwardCalls = new Thread(() -> forwardLoop(fore, forward, stop), "forward-calls");
            forwardCalls.start();
            Latencies cbNull = new Latencies();
            Latencies cbRecall = new Latencies();
            RpcClient back = RpcClient.of(serverSide);
            long deadline = System.nanoTime() + nanos;
            byte[] session = new byte[16];
            byte[] stateid = new byte[16];
            byte[] fh = new byte[32];
            for (int i = 0; System.nanoTime() - deadline < 0; i++) {
                long start = System.nanoTime();
                try {
                    if ((i & 1) == 0) {
                        back.callNull(CallbackProgram.PROGRAM, CallbackProgram.VERSION).get(10, TimeUnit.SECONDS);
                        cbNull.record(System.nanoTime() - start);
                    } else {
                        stateid[0] = (byte) i;
                        XdrPayload args = back.newPayload();
                        CallbackProgram.writeRecall(args.writer(), session, i, stateid, fh);
                        if (!back.call(CallbackProgram.PROGRAM, CallbackProgram.VERSION, CallbackProgram.CB_COMPOUND,
                                args, CallbackProgram::recallAnswered).get(10, TimeUnit.SECONDS)) {
                            cbRecall.failed();
                            continue;
                        }
                        cbRecall.record(System.nanoTime() - start);
                    }
                } catch (Exception e) {
                    ((i & 1) == 0 ? cbNull : cbRecall).failed();
                    out.println("backward call failed: " + e);
                }
            }
            stop.set(true);
            forwardCalls.join(15_000);
            out.println();
            out.println(row("forward", "ECHO " + ECHO_BYTES + " B", "client -> server", forward.summary()));
            out.println(row("backward", "CB_NULL", "server -> client", cbNull.summary()));
            out.println(row("backward", "CB_SEQUENCE+CB_RECALL", "server -> client", cbRecall.summary()));
            out.println("backchannel: server sent " + serverStats.backwardCallsSent() + " backward calls and got "
                    + serverStats.backwardRepliesReceived() + " replies; the client served "
                    + clientStats.backwardCallsReceived() + " (" + callbacks.recalls.get() + " recalls), dropped "
                    + clientStats.backwardDrops());
            boolean ok = forward.count() > 0 && cbNull.count() > 0 && cbRecall.count() > 0 && forward.failures() == 0
                    && cbNull.failures() == 0 && cbRecall.failures() == 0;
            out.println(ok ? "OK: calls went both ways on one connection" : "FAILED: see above");
            return ok ? 0 : 1;
        } finally {
            if (client != null) {
                client.close().await(10, TimeUnit.SECONDS);
            }
            if (server != null) {
                server.close().await(10, TimeUnit.SECONDS);
            }
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }

    /** One row of the summary table: columns padded to the widest entry of each, so every row lines up. */
    static String row(String direction, String calls, String route, String summary) {
        return String.format("%-8s %-21s %-16s  %s", direction, calls, route, summary);
    }

    private static void forwardLoop(RpcClient fore, Latencies forward, AtomicBoolean stop) {
        byte[] data = new byte[ECHO_BYTES];
        while (!stop.get()) {
            long start = System.nanoTime();
            try {
                XdrPayload args = fore.newPayload();
                args.writer().writeOpaque(data);
                RpcReplyDecoder<Boolean> same = r -> {
                    ByteBuf echoed = r.readDdpOpaque(SessionProgram.MAX_ECHO);
                    try {
                        return echoed.readableBytes() == ECHO_BYTES && ByteBufUtil.getBytes(echoed)[0] == data[0];
                    } finally {
                        echoed.release();
                    }
                };
                if (fore.call(SessionProgram.PROGRAM, SessionProgram.VERSION, SessionProgram.ECHO, args, same,
                        SMALL_REPLY)
                        .get(10, TimeUnit.SECONDS)) {
                    forward.record(System.nanoTime() - start);
                } else {
                    forward.failed();
                }
            } catch (Exception e) {
                forward.failed();
            }
            data[0]++;
        }
    }
}
