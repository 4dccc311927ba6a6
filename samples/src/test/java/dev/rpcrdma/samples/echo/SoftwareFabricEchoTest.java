package dev.rpcrdma.samples.echo;

/** The echo sample over RPC-over-RDMA on the in-process software fabric (runs in {@code mvn verify}). */
class SoftwareFabricEchoTest extends EchoRdmaSuite {
    @Override
    String fabric() {
        return "software";
    }

    @Override
    String address() {
        return "127.0.0.1";
    }

    @Override
    String nothingListeningHint() {
        return "the software fabric reaches only servers in this JVM: add --embedded-server";
    }
}
