package dev.rpcrdma.benchmarks.tcp;

/**
 * oncrpc4j's TCP server alone, serving the echo program's numbers (NULL, ECHO) on 127.0.0.1 until the process is
 * stopped: the other server of {@code benchmarks/run-tcp-peers}, called by an independent client.
 *
 * <pre>
 *   java -cp benchmarks.jar dev.rpcrdma.benchmarks.tcp.Oncrpc4jServer PORT
 * </pre>
 */
public final class Oncrpc4jServer {

    private Oncrpc4jServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Oncrpc4jStack stack = new Oncrpc4jStack(port);
        System.out.println("oncrpc4j: listening on 127.0.0.1:" + port);
        System.out.flush();
        Thread.currentThread().join();
        stack.shutdown();
    }
}
