package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.unix.Libc;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_CM_EVENT_ADDR_RESOLVED;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_CM_EVENT_CONNECT_REQUEST;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_CM_EVENT_DISCONNECTED;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_CM_EVENT_ESTABLISHED;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_CM_EVENT_ROUTE_RESOLVED;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_CM_EVENT_TIMEWAIT_EXIT;
import static dev.rpcrdma.channel.verbs.RdmaCmConstants.RDMA_PS_TCP;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Test support: a client and a listener in one JVM, each with its own RDMA-CM event channel, connected over a
 * real device through {@link RdmaCm} alone, with 8 bytes of private data each way checked on both sides.
 */
final class Loopback implements AutoCloseable {
    static final byte[] CLIENT_PRIVATE_DATA = "CLIENT01".getBytes(StandardCharsets.US_ASCII);
    static final byte[] SERVER_PRIVATE_DATA = "SERVER01".getBytes(StandardCharsets.US_ASCII);

    final long listenChannel;
    final long clientChannel;
    long listenId;
    /** Where the server id's events arrive: the listener's channel unless {@link #migrateServer()} moved it. */
    long serverChannel;
    Endpoint client;
    Endpoint server;

    private Loopback() throws NativeCallException {
        listenChannel = RdmaCm.createEventChannel();
        clientChannel = RdmaCm.createEventChannel();
        serverChannel = listenChannel;
    }

    /** Moves the server's id to its own, new event channel ({@code rdma_migrate_id}). */
    void migrateServer() throws NativeCallException {
        long channel = RdmaCm.createEventChannel();
        RdmaCm.migrateId(server.id, channel);
        serverChannel = channel;
        assertEquals(channel, RdmaCm.channel(server.id));
    }

    /** Listener bound and listening; client resolved, with its QP, and rdma_connect sent (8 bytes private data). */
    static Loopback connecting(InetAddress address) throws NativeCallException {
        Loopback c = new Loopback();
        boolean ok = false;
        try {
            c.listenId = RdmaCm.createId(c.listenChannel, 0, RDMA_PS_TCP);
            RdmaCm.bindAddr(c.listenId, new InetSocketAddress(address, 0));
            RdmaCm.listen(c.listenId, 4);
            InetSocketAddress listening = RdmaCm.localAddress(c.listenId);
            assertEquals(address, listening.getAddress());
            assertTrue(listening.getPort() != 0, "listener got a port: " + listening);

            long clientId = RdmaCm.createId(c.clientChannel, 0, RDMA_PS_TCP);
            RdmaCm.resolveAddr(clientId, null, listening, 5000);
            expect(c.clientChannel, RDMA_CM_EVENT_ADDR_RESOLVED, clientId);
            RdmaCm.resolveRoute(clientId, 5000);
            expect(c.clientChannel, RDMA_CM_EVENT_ROUTE_RESOLVED, clientId);
            c.client = new Endpoint("client", clientId);
            RdmaCm.connect(clientId, connParam(CLIENT_PRIVATE_DATA));
            ok = true;
            return c;
        } finally {
            if (!ok) {
                c.close();
            }
        }
    }

    /** The listener's CONNECT_REQUEST, with the client's private data checked. */
    CmEventRecord connectRequest() throws NativeCallException {
        CmEventRecord request = expect(listenChannel, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
        assertEquals(listenId, request.listenId());
        assertPrivateData(CLIENT_PRIVATE_DATA, request, "CONNECT_REQUEST at the listener");
        assertEquals(RdmaCm.localAddress(client.id), RdmaCm.remoteAddress(request.id()));
        return request;
    }

    /** A connected pair: the server accepts with 8 bytes of private data; ESTABLISHED on both sides. */
    static Loopback connect(InetAddress address) throws NativeCallException {
        Loopback c = connecting(address);
        boolean ok = false;
        try {
            CmEventRecord request = c.connectRequest();
            c.server = new Endpoint("server", request.id());
            RdmaCm.accept(request.id(), connParam(SERVER_PRIVATE_DATA));

            CmEventRecord established = expect(c.clientChannel, RDMA_CM_EVENT_ESTABLISHED, c.client.id);
            assertPrivateData(SERVER_PRIVATE_DATA, established, "ESTABLISHED at the client");
            expect(c.listenChannel, RDMA_CM_EVENT_ESTABLISHED, request.id());
            ok = true;
            return c;
        } finally {
            if (!ok) {
                c.close();
            }
        }
    }

    /** The peer's bytes come first; IB/RoCE pads the CM message field with zeros after them. */
    /** {@code privateData} with device-maximum READ depths (librdmacm's 0xFF), retry count 7 and RNR retry 7. */
    static ConnectionParameters connParam(byte[] privateData) {
        return new ConnectionParameters(privateData, 0xFF, 0xFF, 7, 7);
    }

    static void assertPrivateData(byte[] expected, CmEventRecord event, String where) {
        byte[] got = event.privateData();
        assertTrue(got.length >= expected.length, where + ": private data " + got.length + " bytes");
        assertArrayEquals(expected, Arrays.copyOf(got, expected.length), where + ": " + event);
        for (int i = expected.length; i < got.length; i++) {
            assertEquals(0, got[i], where + ": padding byte " + i);
        }
    }

    /**
     * Waits (poll(2) on the channel fd, bounded) for the next event, skipping TIMEWAIT_EXIT of earlier
     * connections, and checks its type, status and (unless 0) id.
     */
    static CmEventRecord expect(long channel, int type, long id) throws NativeCallException {
        CmEventRecord event = next(channel, type, id);
        assertEquals(0, event.status(), "event status: " + event);
        return event;
    }

    /** Like {@link #expect} but leaves the status (e.g. a reject reason) to the caller. */
    static CmEventRecord next(long channel, int type, long id) throws NativeCallException {
        long deadline = System.nanoTime() + Endpoint.TIMEOUT_MS * 1_000_000;
        for (;;) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                fail("no " + RdmaCm.eventName(type) + " within " + Endpoint.TIMEOUT_MS + " ms");
            }
            if ((Endpoint.poll(RdmaCm.eventChannelFd(channel), Libc.POLLIN, (int) left) & Libc.POLLIN) == 0) {
                continue;
            }
            CmEventRecord event = RdmaCm.getCmEvent(channel, CmEventRecord::new);
            if (event.type() == RDMA_CM_EVENT_TIMEWAIT_EXIT && type != RDMA_CM_EVENT_TIMEWAIT_EXIT) {
                continue;
            }
            assertEquals(RdmaCm.eventName(type), event.typeName(), "unexpected event " + event);
            if (id != 0) {
                assertEquals(id, event.id(), "event for another id: " + event);
            }
            return event;
        }
    }

    /**
     * The client disconnects (DREQ); the server sees DISCONNECTED and answers with its own rdma_disconnect (DREP),
     * upon which the client sees DISCONNECTED (without it, the client would wait for the DREQ to time out).
     */
    void disconnect() throws NativeCallException {
        RdmaCm.disconnect(client.id);
        expect(serverChannel, RDMA_CM_EVENT_DISCONNECTED, server.id);
        RdmaCm.disconnect(server.id);
        expect(clientChannel, RDMA_CM_EVENT_DISCONNECTED, client.id);
    }

    /** Both sides' DISCONNECTED of a connection the device ended itself (iWARP: a TERMINATE closed the stream). */
    void awaitDroppedConnection() throws NativeCallException {
        expect(serverChannel, RDMA_CM_EVENT_DISCONNECTED, server.id);
        expect(clientChannel, RDMA_CM_EVENT_DISCONNECTED, client.id);
    }

    /** Endpoints (QP, CQ, channel, MWs, MR, PD, id), the listening id, then both event channels. */
    @Override
    public void close() throws NativeCallException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (listenId != 0) {
            RdmaCm.destroyId(listenId);
        }
        RdmaCm.destroyEventChannel(clientChannel);
        if (serverChannel != listenChannel) {
            RdmaCm.destroyEventChannel(serverChannel);
        }
        RdmaCm.destroyEventChannel(listenChannel);
    }
}
