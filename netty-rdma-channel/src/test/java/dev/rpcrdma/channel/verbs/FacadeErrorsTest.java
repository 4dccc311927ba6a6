package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.ConnectionParameters;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.unix.Libc;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The facades turn native failures into {@link NativeCallException}s naming the call and the errno text, and
 * reject bad arguments before they reach C. Runs on a host without RDMA (where librdmacm/libibverbs fail with
 * real errnos); parts that need such a host skip loudly elsewhere.
 */
class FacadeErrorsTest {

    @Test
    void librariesLoadByVersionedSoname() {
        assertNull(Verbs.loadFailure(), () -> "libibverbs.so.1: " + Verbs.loadFailure());
        assertNull(RdmaCm.loadFailure(), () -> "librdmacm.so.1: " + RdmaCm.loadFailure());
    }

    @Test
    void exceptionNamesCallAndErrnoText() {
        NativeCallException e = new NativeCallException("rdma_resolve_addr", 19);
        assertEquals("rdma_resolve_addr failed: No such device (errno 19)", e.getMessage());
        assertEquals("rdma_resolve_addr", e.call());
        assertEquals(19, e.errno());
        assertEquals("Connection refused", Libc.strerror(111));
    }

    @Test
    void eventChannelWithoutRdmaCmDeviceFailsWithErrnoText() {
        Assumptions.assumeFalse(Files.exists(Path.of("/dev/infiniband/rdma_cm")),
                "SKIPPED: this host has /dev/infiniband/rdma_cm (RDMA-CM works here); the VM test covers it");
        NativeCallException e = assertThrows(NativeCallException.class, RdmaCm::createEventChannel);
        assertEquals("rdma_create_event_channel", e.call());
        assertEquals(19, e.errno(), e.getMessage()); // ENODEV: librdmacm cannot open /dev/infiniband/rdma_cm
        assertTrue(e.getMessage().startsWith("rdma_create_event_channel failed: No such device"), e.getMessage());
    }

    @Test
    void deviceListWithoutKernelSupportFailsWithErrnoText() {
        Assumptions.assumeFalse(Files.exists(Path.of("/sys/class/infiniband_verbs")),
                "SKIPPED: this kernel has RDMA (uverbs) support; the VM test covers device listing");
        NativeCallException e = assertThrows(NativeCallException.class, Verbs::deviceNames);
        assertEquals("ibv_get_device_list", e.call());
        assertTrue(e.errno() > 0);
        assertTrue(e.getMessage().contains(Libc.strerror(e.errno())), e.getMessage());
    }

    /**
     * The event loop's {@code ibv_get_cq_event} (jffi into native scratch, without errno; a failure asks again with
     * errno saved) on a completion channel whose fd has no event: "no event" (EAGAIN on the non-blocking fd) is 0,
     * any other failure an exception with its errno. The channel is a fake {@code struct ibv_comp_channel} around a pipe, so no device is needed; the VM's
     * verbs test takes real events through the same call.
     */
    @Test
    void cqEventThroughScratchReportsNoEventAndErrorsByErrno() throws Exception {
        Assumptions.assumeTrue(Verbs.loadFailure() == null, () -> "SKIPPED: no libibverbs: " + Verbs.loadFailure());
        com.kenai.jffi.MemoryIO memory = com.kenai.jffi.MemoryIO.getInstance();
        io.netty.channel.epoll.Epoll.ensureAvailability(); // loads Netty's native library (the pipe below)
        io.netty.channel.unix.FileDescriptor[] pipe = io.netty.channel.unix.FileDescriptor.pipe();
        long channel = memory.allocateMemory(IbvLayouts.IbvCompChannel.SIZE, true);
        long scratch = Verbs.allocateCqEventScratch();
        try {
            Verbs.setNonBlocking(pipe[0].intValue());
            memory.putInt(channel + IbvLayouts.IbvCompChannel.FD, pipe[0].intValue());
            assertEquals(pipe[0].intValue(), Verbs.compChannelFd(channel));
            assertEquals(0, Verbs.getCqEvent(channel, scratch), "no event pending");
            assertEquals(0, Verbs.getCqEvent(channel, scratch), "and again: nothing was consumed");
            memory.putInt(channel + IbvLayouts.IbvCompChannel.FD, -1);
            NativeCallException e = assertThrows(NativeCallException.class, () -> Verbs.getCqEvent(channel, scratch));
            assertEquals("ibv_get_cq_event", e.call());
            assertEquals(9, e.errno(), e.getMessage()); // EBADF
            assertThrows(IllegalArgumentException.class, () -> Verbs.getCqEvent(0, scratch));
        } finally {
            Verbs.freeCqEventScratch(scratch);
            memory.freeMemory(channel);
            pipe[0].close();
            pipe[1].close();
        }
    }

    @Test
    void nullHandlesNeverReachNativeCode() {
        assertThrows(IllegalArgumentException.class, () -> Verbs.allocPd(0));
        assertThrows(IllegalArgumentException.class, () -> Verbs.regMr(0, 0x1000, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> Verbs.mrLkey(0));
        assertThrows(IllegalArgumentException.class, () -> Verbs.pollCq(0, 1, 0x1000));
        assertThrows(IllegalArgumentException.class, () -> Verbs.allocMw(0, IbvConstants.IBV_MW_TYPE_2));
        assertThrows(IllegalArgumentException.class, () -> RdmaCm.destroyId(0));
        assertThrows(IllegalArgumentException.class, () -> RdmaCm.getCmEvent(0, CmEventRecord::new));
        assertThrows(IllegalArgumentException.class, () -> RdmaCm.qp(0));
    }

    @Test
    void privateDataLimitsAreCheckedBeforeTheCall() {
        byte[] tooLong = new byte[RdmaCm.MAX_CONNECT_PRIVATE_DATA + 1];
        assertThrows(IllegalArgumentException.class, () -> RdmaCm.connect(0x1000, Loopback.connParam(tooLong)));
        assertThrows(IllegalArgumentException.class,
                () -> RdmaCm.reject(0x1000, new byte[RdmaCm.MAX_REJECT_PRIVATE_DATA + 1]));
        assertThrows(IllegalArgumentException.class,
                () -> RdmaCm.connect(0x1000, new ConnectionParameters(new byte[0], 256, 1, 7, 7)));
        assertThrows(IllegalArgumentException.class,
                () -> RdmaCm.accept(0x1000, new ConnectionParameters(new byte[0], 1, 1, 8, 7)));
        assertThrows(IllegalArgumentException.class, () -> RdmaCm.createQp(0x1000, 0x1000, 0x1000, 0x1000,
                new QpCapabilities(0, 1, 1, 1, 0), false));
    }

    @Test
    void socketAddressesRoundTripThroughSockaddrBytes() throws Exception {
        InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 20049);
        byte[] sa = SocketAddresses.encode(v4);
        assertArrayEquals(new byte[] {2, 0, (byte) 0x4E, (byte) 0x51, (byte) 192, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0}, sa);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 443);
        try (NativeMemory m = NativeMemory.allocate(128)) {
            m.put(0, sa, 0, sa.length);
            assertEquals(v4, SocketAddresses.decode(m.address()));
            byte[] sa6 = SocketAddresses.encode(v6);
            assertEquals(28, sa6.length);
            assertEquals(10, sa6[0]);
            m.put(0, sa6, 0, sa6.length);
            assertEquals(v6, SocketAddresses.decode(m.address()));
            m.fill(0, 2, (byte) 0); // AF_UNSPEC
            assertNull(SocketAddresses.decode(m.address()));
        }
        assertThrows(IllegalArgumentException.class,
                () -> SocketAddresses.encode(InetSocketAddress.createUnresolved("example.invalid", 1)));
    }

    @Test
    void nativeMemoryIsBoundedAndFreedOnce() {
        NativeMemory m = NativeMemory.allocate(16);
        assertTrue(m.isOpen());
        byte[] data = {1, 2, 3, 4};
        m.put(12, data, 0, 4);
        byte[] back = new byte[4];
        m.get(12, back, 0, 4);
        assertArrayEquals(data, back);
        assertThrows(IndexOutOfBoundsException.class, () -> m.put(13, data, 0, 4));
        m.close();
        m.close();
        assertFalse(m.isOpen());
        assertThrows(IllegalStateException.class, m::address);
    }
}
