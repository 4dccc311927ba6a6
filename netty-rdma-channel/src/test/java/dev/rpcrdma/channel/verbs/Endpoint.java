package dev.rpcrdma.channel.verbs;

import dev.rpcrdma.channel.fabric.SendFlags;
import dev.rpcrdma.channel.fabric.QpCapabilities;
import dev.rpcrdma.channel.unix.Libc;
import static dev.rpcrdma.channel.fabric.AccessFlags.LOCAL_WRITE;
import static dev.rpcrdma.channel.fabric.AccessFlags.MW_BIND;
import static dev.rpcrdma.channel.fabric.AccessFlags.REMOTE_READ;
import static dev.rpcrdma.channel.fabric.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

/**
 * Test support: one side of a connection over the real bindings: its RDMA-CM id, PD, completion channel, CQ,
 * QP and one registered {@link NativeMemory} buffer, plus reusable work-request/completion flyweights. Reaps
 * completions either by busy polling or through the completion channel fd. {@link #close()} destroys everything
 * in order.
 */
final class Endpoint implements AutoCloseable {
    static final int BUFFER_SIZE = 64 * 1024;
    static final int ACCESS = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ
            | MW_BIND;
    static final long TIMEOUT_MS = 20_000;

    /** One work completion copied out of {@link WorkCompletions}. */
    record Wc(long wrId, int status, int opcode, int byteLen, int wcFlags, boolean withInvalidate, int invalidatedRkey,
              int qpNum) {
        @Override
        public String toString() {
            return "Wc{wrId " + wrId + ", " + Verbs.wcStatusString(status) + " (" + status + "), opcode " + opcode
                    + ", byteLen " + byteLen + ", flags " + wcFlags + ", withInv " + withInvalidate + ", invRkey 0x"
                    + Integer.toHexString(invalidatedRkey) + "}";
        }
    }

    final String name;
    final long id;
    final long context;
    final long pd;
    final long compChannel;
    private final long cqEventScratch = Verbs.allocateCqEventScratch();
    final long cq;
    final NativeMemory buffer;
    final long mr;
    final SendWorkRequests sendWrs = new SendWorkRequests(4, 2);
    final RecvWorkRequests recvWrs = new RecvWorkRequests(4, 1);
    final DeviceAttributes device;
    final WorkCompletions wcs;
    final List<Long> memoryWindows = new ArrayList<>();
    long qp;
    int unackedCqEvents;

    /** Allocates the verbs resources for {@code id} (bound to a device) and creates its QP. */
    Endpoint(String name, long id) throws NativeCallException {
        this.name = name;
        this.id = id;
        context = RdmaCm.verbs(id);
        assertTrue(context != 0, name + ": id not bound to a device");
        device = Verbs.queryDevice(context);
        wcs = new WorkCompletions(8, device.wcWithInvalidateFlag());
        pd = Verbs.allocPd(context);
        compChannel = Verbs.createCompChannel(context);
        cq = Verbs.createCq(context, 32, 0, compChannel, 0);
        buffer = NativeMemory.allocate(BUFFER_SIZE);
        mr = Verbs.regMr(pd, buffer.address(), BUFFER_SIZE, ACCESS);
        QpCapabilities granted = RdmaCm.createQp(id, pd, cq, cq, new QpCapabilities(8, 8, 2, 1, 0), false);
        assertTrue(granted.maxSendWr >= 8 && granted.maxRecvWr >= 8, name + ": granted " + granted);
        qp = RdmaCm.qp(id);
        assertTrue(qp != 0, name + ": no QP on the id");
    }

    long addr(int offset) {
        return buffer.address() + offset;
    }

    int lkey() {
        return Verbs.mrLkey(mr);
    }

    int rkey() {
        return Verbs.mrRkey(mr);
    }

    void write(int offset, byte[] data) {
        buffer.put(offset, data, 0, data.length);
    }

    byte[] read(int offset, int length) {
        byte[] out = new byte[length];
        buffer.get(offset, out, 0, length);
        return out;
    }

    void postRecv(long wrId, int offset, int length) throws NativeCallException {
        recvWrs.clear();
        int i = recvWrs.add(wrId);
        recvWrs.addSge(i, addr(offset), length, lkey());
        Verbs.postRecv(qp, recvWrs);
    }

    /** Posts one signaled work request built by {@code wr}. */
    void postSend(long wrId, int opcode, WrBuilder wr) throws NativeCallException {
        sendWrs.clear();
        int i = sendWrs.add(wrId, opcode, SendFlags.SIGNALED);
        wr.build(sendWrs, i);
        Verbs.postSend(qp, sendWrs);
    }

    interface WrBuilder {
        void build(SendWorkRequests wrs, int index);
    }

    /** Reaps exactly one completion by busy-polling the CQ. */
    Wc pollOne() throws NativeCallException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (System.nanoTime() < deadline) {
            int n = Verbs.pollCq(cq, 1, wcs.address());
            if (n == 1) {
                return copy(0);
            }
            Thread.onSpinWait();
        }
        return fail(name + ": no completion within " + TIMEOUT_MS + " ms (polling)");
    }

    /**
     * Reaps exactly one completion through the completion channel: arm the CQ ({@code ibv_req_notify_cq}), poll
     * once (a completion may have arrived before arming), else wait for the channel fd with poll(2), take the
     * event with {@code ibv_get_cq_event} and ack it, and poll again.
     */
    /** {@link Libc#poll}, its failure as a {@link NativeCallException}. */
    static int poll(int fd, int events, int timeoutMillis) throws NativeCallException {
        int revents = Libc.poll(fd, events, timeoutMillis);
        if (revents < 0) {
            throw new NativeCallException("poll", Libc.errno());
        }
        return revents;
    }

    Wc awaitOneByChannel() throws NativeCallException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (System.nanoTime() < deadline) {
            Verbs.reqNotifyCq(cq, false);
            int n = Verbs.pollCq(cq, 1, wcs.address());
            if (n == 1) {
                return copy(0);
            }
            int revents = Endpoint.poll(Verbs.compChannelFd(compChannel), Libc.POLLIN, 1000);
            if ((revents & Libc.POLLIN) != 0) {
                // The fd is readable: returns without blocking. Through the event loop's path (jffi, native scratch).
                long eventCq = Verbs.getCqEvent(compChannel, cqEventScratch);
                assertEquals(cq, eventCq, name + ": event for another CQ");
                Verbs.ackCqEvents(eventCq, 1);
                unackedCqEvents = 0;
                n = Verbs.pollCq(cq, 1, wcs.address());
                if (n == 1) {
                    return copy(0);
                }
            }
        }
        return fail(name + ": no completion event within " + TIMEOUT_MS + " ms (completion channel)");
    }

    private Wc copy(int i) {
        return new Wc(wcs.wrId(i), wcs.status(i), wcs.opcode(i), wcs.byteLen(i), wcs.wcFlags(i),
                wcs.withInvalidate(i), wcs.invalidatedRkey(i), wcs.qpNum(i));
    }

    /** Collects completions until none arrives for {@code quietMs} (e.g. flushed receives after an error). */
    List<Wc> drain(long quietMs) throws NativeCallException {
        List<Wc> out = new ArrayList<>();
        long quietUntil = System.nanoTime() + quietMs * 1_000_000;
        while (System.nanoTime() < quietUntil) {
            int n = Verbs.pollCq(cq, wcs.capacity(), wcs.address());
            for (int i = 0; i < n; i++) {
                out.add(copy(i));
            }
            if (n > 0) {
                quietUntil = System.nanoTime() + quietMs * 1_000_000;
            }
        }
        return out;
    }

    long allocMw() throws NativeCallException {
        long mw = Verbs.allocMw(pd, IbvConstants.IBV_MW_TYPE_2);
        memoryWindows.add(mw);
        return mw;
    }

    /**
     * Destroys in order: QP, CQ, completion channel, memory windows, MR, PD, id. Memory windows go before the MR
     * because a window still bound to an MR keeps the MR busy. Windows are deallocated, never invalidated with
     * IBV_WR_LOCAL_INV: on Soft-RoCE a LOCAL_INV of a bound type-2 window oopses the guest kernel
     * (rxe_invalidate_mw NULL dereference in Linux drivers/infiniband/sw/rxe/rxe_mw.c, 6.1/6.12; docs/providers.md).
     */
    @Override
    public void close() throws NativeCallException {
        if (qp != 0) {
            RdmaCm.destroyQp(id);
            qp = 0;
        }
        Verbs.destroyCq(cq);
        Verbs.destroyCompChannel(compChannel);
        Verbs.freeCqEventScratch(cqEventScratch);
        for (long mw : memoryWindows) {
            Verbs.deallocMw(mw);
        }
        memoryWindows.clear();
        Verbs.deregMr(mr);
        buffer.close(); // only now: the device can no longer reach it
        Verbs.deallocPd(pd);
        RdmaCm.destroyId(id);
        sendWrs.close();
        recvWrs.close();
        wcs.close();
    }
}
