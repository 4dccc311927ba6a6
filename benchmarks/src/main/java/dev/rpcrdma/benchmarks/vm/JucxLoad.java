package dev.rpcrdma.benchmarks.vm;

import org.openucx.jucx.ucp.UcpConnectionRequest;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The RDMA peer of {@code tools/vm/run-benchmarks}: JUCX (UCX's Java binding, Maven Central
 * {@code org.openucx:jucx}, over the system's UCX), server and client in this JVM, each with its own worker and
 * thread, both busy-polling ({@code worker.progress()} in a loop). The client connects to the server's listener
 * by socket address (RDMA CM), as a JUCX application does; tagged messages.
 * <ul>
 *   <li>{@code jucx.pingpong_64B}: 64 B ping-pong, one in flight; round trip from the send to the echo's
 *   arrival (comparable with {@code 2 x ib_send_lat} polling and with our NULL RPC);</li>
 *   <li>{@code jucx.echo_1MiB_x4}: 1 MiB echo, 4 in flight (UCX's rendezvous protocol: the receiver pulls the
 *   payload with RDMA), and {@code .each_way} in MiB/s (comparable with our 1 MiB ECHO).</li>
 * </ul>
 * Every echoed byte is compared with what was sent. On Soft-RoCE, run with {@code UCX_TLS=rc_verbs
 * UCX_NET_DEVICES=rxe0:1} (UCX otherwise picks shared memory between two workers of one process); UCX needs
 * {@code /dev/shm} and {@code /dev/fd}.
 *
 * <pre>
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.vm.JucxLoad [--address 192.0.2.1] [--port 13337]
 *        [--warmup SECONDS] [--seconds SECONDS] [--bulk-seconds SECONDS]
 * </pre>
 * Prints {@code RESULT name value unit} lines, as {@link VmLoad}.
 */
public final class JucxLoad {

    private static final int PING_SIZE = 64;
    private static final long PING_TAG = 1L << 32;

    private final UcpWorker worker;
    private final UcpEndpoint endpoint;

    private JucxLoad(UcpWorker worker, UcpEndpoint endpoint) {
        this.worker = worker;
        this.endpoint = endpoint;
    }

    public static void main(String[] args) throws Exception {
        String address = "192.0.2.1";
        int port = 13337;
        double warmup = 15;
        double seconds = 4;
        double bulkSeconds = 10;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--address": address = v; break;
                case "--port": port = Integer.parseInt(v); break;
                case "--warmup": warmup = Double.parseDouble(v); break;
                case "--seconds": seconds = Double.parseDouble(v); break;
                case "--bulk-seconds": bulkSeconds = Double.parseDouble(v); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("# jucx: UCX_TLS=" + System.getenv("UCX_TLS") + " UCX_NET_DEVICES="
                + System.getenv("UCX_NET_DEVICES"));
        try (UcpContext context = new UcpContext(new UcpParams().requestTagFeature());
             UcpWorker serverWorker = context.newWorker(new UcpWorkerParams());
             UcpWorker clientWorker = context.newWorker(new UcpWorkerParams())) {
            AtomicReference<UcpConnectionRequest> request = new AtomicReference<>();
            UcpListener listener = serverWorker.newListener(new UcpListenerParams()
                    .setSockAddr(new InetSocketAddress(address, port)).setConnectionHandler(request::set));
            UcpEndpoint clientEndpoint = clientWorker.newEndpoint(new UcpEndpointParams()
                    .setSocketAddress(new InetSocketAddress(address, port)).setName("client"));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (request.get() == null) {
                clientWorker.progress();
                serverWorker.progress();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no connection request within 30 s");
                }
            }
            UcpEndpoint serverEndpoint = serverWorker.newEndpoint(new UcpEndpointParams()
                    .setConnectionRequest(request.get()).setName("server"));
            System.out.println("# jucx: connected to " + listener.getAddress());

            JucxLoad load = new JucxLoad(clientWorker, clientEndpoint);
            JucxEchoServer server = new JucxEchoServer(serverWorker, serverEndpoint, VmLoad.BULK_IN_FLIGHT,
                    VmLoad.BULK_SIZE);
            Thread serverThread = new Thread(server, "jucx-server");
            serverThread.setDaemon(true);
            serverThread.start();
            try {
                VmLoad.latency("jucx.pingpong_64B", load.pingPong(2 * warmup, seconds));
                server.check();
                ClosedLoop.Result bulk = load.bulk(Math.max(2, warmup / 2), bulkSeconds);
                VmLoad.latency("jucx.echo_1MiB_x" + VmLoad.BULK_IN_FLIGHT, bulk);
                VmLoad.result("jucx.echo_1MiB_x" + VmLoad.BULK_IN_FLIGHT + ".each_way",
                        bulk.opsPerSecond() * VmLoad.BULK_SIZE / (1 << 20), "MiB/s");
                server.check();
            } finally {
                server.stop();
                serverThread.join(10_000);
            }
            // Endpoints, listener and workers are released with the process: closing an endpoint with requests
            // still posted on its worker (the server's receives) is not worth the ceremony in a load program.
        }
    }

    /** 64 B ping-pong, one in flight, busy-polling: warm-up, then a measured phase. */
    private ClosedLoop.Result pingPong(double warmupSeconds, double seconds) throws Exception {
        ByteBuffer out = ByteBuffer.allocateDirect(PING_SIZE);
        ByteBuffer in = ByteBuffer.allocateDirect(PING_SIZE);
        for (int i = 0; i < PING_SIZE; i++) {
            out.put(i, (byte) (i * 31 + 7));
        }
        long[] samples = new long[VmLoad.MAX_SAMPLES];
        long seq = 0;
        long end = System.nanoTime() + (long) (warmupSeconds * 1e9);
        while (System.nanoTime() < end) {
            pingOnce(out, in, seq++);
        }
        int n = 0;
        long t0 = System.nanoTime();
        end = t0 + (long) (seconds * 1e9);
        long now = t0;
        while (now < end && n < samples.length) {
            long start = now;
            pingOnce(out, in, seq++);
            now = System.nanoTime();
            samples[n++] = now - start;
        }
        long[] measured = Arrays.copyOf(samples, n);
        Arrays.sort(measured);
        return new ClosedLoop.Result(measured, now - t0);
    }

    private void pingOnce(ByteBuffer out, ByteBuffer in, long seq) throws Exception {
        out.putLong(0, seq);
        in.putLong(0, -1);
        UcpRequest received = worker.recvTaggedNonBlocking(in, PING_TAG, -1L, null);
        UcpRequest sent = endpoint.sendTaggedNonBlocking(out, PING_TAG, null);
        while (!received.isCompleted() || !sent.isCompleted()) {
            worker.progress();
        }
        if (received.getRecvSize() != PING_SIZE || in.mismatch(out) != -1) {
            throw new IllegalStateException("echoed bytes differ (ping " + seq + ")");
        }
    }

    /** 1 MiB echo with {@link VmLoad#BULK_IN_FLIGHT} in flight, each slot reissued as soon as its echo is back. */
    private ClosedLoop.Result bulk(double warmupSeconds, double seconds) throws Exception {
        int slots = VmLoad.BULK_IN_FLIGHT;
        ByteBuffer[] out = new ByteBuffer[slots];
        ByteBuffer[] in = new ByteBuffer[slots];
        UcpRequest[] sent = new UcpRequest[slots];
        UcpRequest[] received = new UcpRequest[slots];
        long[] started = new long[slots];
        long seq = 0;
        for (int s = 0; s < slots; s++) {
            out[s] = ByteBuffer.allocateDirect(VmLoad.BULK_SIZE);
            in[s] = ByteBuffer.allocateDirect(VmLoad.BULK_SIZE);
            for (int i = 0; i < VmLoad.BULK_SIZE; i += 8) {
                out[s].putLong(i, i * 0x9E3779B97F4A7C15L + s);
            }
        }
        long[] samples = new long[VmLoad.MAX_SAMPLES];
        int n = 0;
        long t0 = System.nanoTime();
        long measureFrom = t0 + (long) (warmupSeconds * 1e9);
        long end = measureFrom + (long) (seconds * 1e9);
        for (int s = 0; s < slots; s++) {
            started[s] = System.nanoTime();
            issue(s, seq++, out, in, sent, received);
        }
        long now = t0;
        while (now < end) {
            worker.progress();
            for (int s = 0; s < slots; s++) {
                if (received[s].isCompleted() && sent[s].isCompleted()) {
                    if (received[s].getRecvSize() != VmLoad.BULK_SIZE || in[s].mismatch(out[s]) != -1) {
                        throw new IllegalStateException("echoed bytes differ (slot " + s + ")");
                    }
                    now = System.nanoTime();
                    if (now >= measureFrom && n < samples.length) {
                        samples[n++] = now - started[s];
                    }
                    started[s] = now;
                    issue(s, seq++, out, in, sent, received);
                }
            }
            now = System.nanoTime();
        }
        // Drain what is still in flight, so the server's sends complete before it stops.
        for (int s = 0; s < slots; s++) {
            while (!received[s].isCompleted() || !sent[s].isCompleted()) {
                worker.progress();
            }
        }
        long[] measured = Arrays.copyOf(samples, n);
        Arrays.sort(measured);
        return new ClosedLoop.Result(measured, end - measureFrom);
    }

    private void issue(int s, long seq, ByteBuffer[] out, ByteBuffer[] in, UcpRequest[] sent,
                       UcpRequest[] received) {
        long tag = s;
        out[s].putLong(0, seq);
        in[s].putLong(0, -1);
        received[s] = worker.recvTaggedNonBlocking(in[s], tag, -1L, null);
        sent[s] = endpoint.sendTaggedNonBlocking(out[s], tag, null);
    }
}
