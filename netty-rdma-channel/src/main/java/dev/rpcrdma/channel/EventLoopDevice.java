package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.Arrays;

/**
 * The verbs objects one {@link RdmaIoHandler} shares on one device among its channels: a protection domain, one
 * completion channel and the completion queues the loop's queue pairs complete into, each completion routed to its
 * channel by the id in its {@code wr_id} ({@link WorkRequestIds}). Event-loop confined; sizing and lifetime are
 * described in the package documentation.
 */
final class EventLoopDevice {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(EventLoopDevice.class);
    /** Smallest completion queue created. */
    static final int MIN_CQE = 1024;
    /** Completion events acknowledged per {@code ibv_ack_cq_events}. */
    private static final int ACK_BATCH = 32;

    private final RdmaIoHandler handler;
    final VerbsDevice device;
    private final int batch;
    /**
     * Event-driven loop (no busy polling): a queue found empty by a poll after its arming goes cold at once, as the
     * C requester sleeps after its one empty poll, rather than being polled again on the loop's next round.
     */
    private final boolean coldWhenDrained;
    private final IntObjectMap<RdmaChannel> channels = new IntObjectHashMap<>();
    /**
     * The channel of the last completion routed by channel id, and that id (-1: none): a batch's completions mostly
     * come from one connection (a Send's and the next receive's), so the map is asked once per change of channel.
     */
    private int lastChannelId = -1;
    private RdmaChannel lastChannel;
    /** Channels whose queue pair receives through a shared receive queue, by queue pair number. */
    private final IntObjectMap<RdmaChannel> byQpNum = new IntObjectHashMap<>();
    /** The loop's shared receive queues on the device (one per receive buffer size), by index. */
    private SharedReceives[] shared = new SharedReceives[0];
    /** Channels that had completions in the current poll batch: {@code [0, touchedCount)}. */
    private RdmaChannel[] touched = new RdmaChannel[8];
    private int touchedCount;
    ProtectionDomain pd;
    CompletionChannel compChannel;
    /** Copy-on-write: a channel attached during a poll batch may add a queue. */
    private Cq[] cqs = new Cq[0];
    private int references;
    private boolean polling;
    private boolean destroyed;

    private EventLoopDevice(RdmaIoHandler handler, VerbsDevice device, int batch, boolean coldWhenDrained) {
        this.handler = handler;
        this.device = device;
        this.batch = batch;
        this.coldWhenDrained = coldWhenDrained;
    }

    /**
     * Allocates the protection domain and the completion channel (queues come with the first channel);
     * {@code coldWhenDrained}: the loop sleeps rather than busy-polls ({@link #poll(boolean)}).
     */
    static EventLoopDevice create(RdmaIoHandler handler, VerbsDevice device, int batch, boolean coldWhenDrained)
            throws IOException {
        EventLoopDevice d = new EventLoopDevice(handler, device, batch, coldWhenDrained);
        try {
            d.pd = device.allocProtectionDomain();
            d.compChannel = device.createCompletionChannel();
            return d;
        } catch (Throwable t) {
            d.destroy();
            throw t;
        }
    }

    /** The loop that owns this device's objects. */
    io.netty.util.concurrent.ThreadAwareExecutor executor() {
        return handler.receiveHolders.loop();
    }

    int fd() {
        return compChannel.fd();
    }

    /** Channels attached (queue pairs created on this device's queues and not destroyed). */
    int channels() {
        return channels.size();
    }

    /** Completion queues. */
    int completionQueues() {
        return cqs.length;
    }

    /**
     * Reserves {@code entries} completions for {@code channel}'s queue pair in a queue with room (creating one if
     * none has) and takes a reference; returns the queue to create the queue pair on.
     */
    Cq attach(RdmaChannel channel, int channelId, int entries) throws IOException {
        if (destroyed) {
            throw new IllegalStateException("loop device destroyed");
        }
        int maxCqe = device.maxCqe();
        if (entries > maxCqe) {
            if (references == 0) {
                handler.destroyLoopDevice(this);
            }
            throw new RdmaException("a queue pair of " + entries + " work requests exceeds the device's max_cqe "
                    + maxCqe + ": lower SEND_QUEUE_DEPTH or RECEIVE_QUEUE_DEPTH");
        }
        Cq target = null;
        long total = 0;
        for (Cq q : cqs) {
            total += q.capacity;
            if (target == null && q.capacity - q.reserved >= entries) {
                target = q;
            }
        }
        if (target == null) {
            int size = (int) Math.min(maxCqe, Math.max(Math.max(entries, MIN_CQE), 2 * total));
            CompletionQueue queue;
            try {
                queue = device.createCompletionQueue(size, compChannel);
            } catch (Throwable t) {
                if (references == 0) {
                    handler.destroyLoopDevice(this);
                }
                throw t;
            }
            target = new Cq(queue, queue.newCompletionArray(batch), size);
            Cq[] more = Arrays.copyOf(cqs, cqs.length + 1);
            more[cqs.length] = target;
            cqs = more;
        }
        target.reserved += entries;
        channels.put(channelId, channel);
        if (channelId == lastChannelId) {
            lastChannelId = -1; // never, unless an id came round again
            lastChannel = null;
        }
        references++;
        return target;
    }

    /**
     * A queue of {@code entries} that no queue pair reserves in: the receive CQ of a shared receive queue, which
     * holds at most that many receives.
     */
    Cq dedicatedCq(int entries) throws IOException {
        CompletionQueue queue = device.createCompletionQueue(entries, compChannel);
        Cq q = new Cq(queue, queue.newCompletionArray(batch), entries);
        q.reserved = entries;
        Cq[] more = Arrays.copyOf(cqs, cqs.length + 1);
        more[cqs.length] = q;
        cqs = more;
        return q;
    }

    /**
     * The loop's shared receive queue for receive buffers of {@code bufferSize} bytes, created (with
     * {@code depth} receives and {@code spare} spare buffers) if there is none yet.
     */
    SharedReceives sharedReceives(int depth, int bufferSize, int spare, io.netty.buffer.ByteBufAllocator alloc)
            throws IOException {
        for (SharedReceives s : shared) {
            if (s.bufferSize == bufferSize) {
                return s;
            }
        }
        SharedReceives s = SharedReceives.create(this, shared.length, depth, bufferSize, spare, alloc);
        SharedReceives[] more = Arrays.copyOf(shared, shared.length + 1);
        more[shared.length] = s;
        shared = more;
        return s;
    }

    /** Routes shared receive completions of queue pair {@code qpNum} to {@code channel}. */
    void receivesThroughSrq(int qpNum, RdmaChannel channel) {
        byQpNum.put(qpNum, channel);
    }

    /**
     * {@code channelId}'s queue pair ({@code qpNum}) is destroyed: no more completions are routed to it; its
     * reservation in {@code cq} goes back when every work request came back ({@code drained}).
     */
    void detach(int channelId, int qpNum, Cq cq, int entries, boolean drained) {
        channels.remove(channelId);
        if (channelId == lastChannelId) {
            lastChannelId = -1;
            lastChannel = null;
        }
        byQpNum.remove(qpNum);
        if (drained && cq != null) {
            cq.reserved -= entries;
        }
    }

    /**
     * Takes a reference that is not a channel's (e.g. memory registered on {@link #pd} for all the loop's connections
     * on the device): the objects stay until it is {@link #release() released} too. Loop thread.
     */
    void retain() {
        if (destroyed) {
            throw new IllegalStateException("loop device destroyed");
        }
        references++;
    }

    /** Drops a reference; the last one destroys the device objects (after the batch when polling). */
    void release() {
        if (--references == 0 && !polling) {
            handler.destroyLoopDevice(this);
        }
    }

    /**
     * Polls the hot queues (every queue when {@code includeArmed}) up to the loop's batch each, dispatching every
     * completion to its channel; then each channel that had completions finishes its batch (fires
     * {@code channelReadComplete}, writes more, or finishes a delayed close). A poll that finds nothing leaves the
     * queue cold. In an event-driven loop, a queue that a poll after its arming found empty (fewer completions than
     * asked for) goes cold at once: whatever it completes from then on raises an event (or its event already waits
     * on the completion channel), so polling it again on the loop's next round (one {@code ibv_poll_cq} per wake-up)
     * would only find what the event announces anyway. Returns the completions.
     */
    int poll(boolean includeArmed) {
        if (destroyed || polling) {
            return 0; // a poll from within a poll (a channel's batch end) leaves the rest to the outer one
        }
        int work = 0;
        polling = true;
        try {
            for (Cq q : cqs) {
                if (!q.hot && !includeArmed) {
                    continue;
                }
                int n = poll(q);
                if (coldWhenDrained && q.armed && q.drainedSinceArm) {
                    q.hot = false;
                } else if (n > 0) {
                    q.hot = true;
                }
                work += n;
            }
        } finally {
            // A channel's batch end may complete more (a Send posted, a receive reposted): those come in the next
            // poll, so the list does not grow while it is walked.
            for (int i = 0; i < touchedCount; i++) {
                RdmaChannel ch = touched[i];
                touched[i] = null;
                try {
                    ch.completionsDone();
                } catch (Throwable t) {
                    logger.warn("{} failed to finish its completion batch", ch, t);
                }
            }
            touchedCount = 0;
            polling = false;
        }
        if (references == 0) {
            handler.destroyLoopDevice(this);
        }
        return work;
    }

    /** Whether some queue is cold (armed: its completions are announced on the completion channel only). */
    boolean anyCold() {
        for (Cq q : cqs) {
            if (!q.hot) {
                return true;
            }
        }
        return false;
    }

    /** Whether some queue is hot (polled on the loop's next round). */
    boolean anyHot() {
        for (Cq q : cqs) {
            if (q.hot) {
                return true;
            }
        }
        return false;
    }

    private int poll(Cq q) {
        int total = 0;
        CompletionArray wc = q.completions;
        try {
            while (total < batch) {
                int n = q.queue.poll(wc);
                if (n < wc.capacity()) {
                    // Fewer than asked for: the queue was empty when polled. Noted before the dispatch, whose
                    // posts may complete at once: those come after the arming, so they raise an event.
                    q.drainedSinceArm = q.armed;
                }
                for (int i = 0; i < n; i++) {
                    dispatch(wc, i);
                }
                total += n;
                if (n < wc.capacity()) {
                    break;
                }
            }
        } catch (IOException e) {
            failChannelsOn(q, e);
        }
        return total;
    }

    private void dispatch(CompletionArray wc, int i) {
        long wrId = wc.wrId(i);
        RdmaChannel ch;
        if (WorkRequestIds.kind(wrId) == WorkRequestIds.SHARED_RECEIVE) {
            ch = byQpNum.get(wc.qpNum(i));
            if (ch == null) {
                // Its queue pair is gone: the receive goes back to the shared queue.
                shared[WorkRequestIds.channelId(wrId)].orphan(WorkRequestIds.slot(wrId));
                return;
            }
        } else {
            int id = WorkRequestIds.channelId(wrId);
            if (id == lastChannelId) {
                ch = lastChannel;
            } else {
                ch = channels.get(id);
                if (ch != null) {
                    lastChannelId = id;
                    lastChannel = ch;
                }
            }
        }
        if (ch == null) {
            // Only after the close backstop destroyed a queue pair whose work requests had not all come back.
            logger.debug("completion for a channel no longer attached: wr_id {}", wrId);
            return;
        }
        if (ch.startCompletions()) {
            if (touchedCount == touched.length) {
                touched = Arrays.copyOf(touched, 2 * touchedCount);
            }
            touched[touchedCount++] = ch;
        }
        try {
            ch.completion(wc, i);
        } catch (Throwable t) {
            logger.warn("{} failed to process a completion", ch, t);
            ch.recordFailure(t);
        }
    }

    /**
     * Arms every hot queue (a queue whose arming fails stays hot and its channels fail) and returns whether one was
     * armed now: only such a queue needs the poll after arming. A queue still armed since its last event was taken
     * and found empty by a poll after that arming ({@link Cq#drainedSinceArm}) goes cold as it is: whatever it
     * completes from then on raises an event, or its event is already waiting on the completion channel (the device
     * notifies once per arming, and the event stays readable until taken, which re-arms), so no wake-up is lost and
     * neither the arming nor the poll after it is needed again.
     */
    boolean arm() {
        boolean armed = false;
        for (Cq q : cqs) {
            if (q.hot) {
                if (q.armed && q.drainedSinceArm) {
                    q.hot = false;
                    continue;
                }
                try {
                    q.queue.requestNotify(false);
                    q.hot = false;
                    q.armed = true;
                    q.drainedSinceArm = false;
                    armed = true;
                } catch (IOException e) {
                    failChannelsOn(q, e);
                }
            }
        }
        return armed;
    }

    /**
     * The completion channel is readable: takes one event (the epoll set is level-triggered, so another queued
     * event wakes the loop again, and reading until EAGAIN would cost a failing read(2) per wakeup), makes its queue
     * hot, acknowledges events in batches and arms the queue again at once, so that the poll that follows (which
     * finds what raised the event) also counts as the poll after arming: the loop may then sleep again without
     * another arming and poll ({@link #arm}).
     */
    void completionChannelReady() {
        if (destroyed) {
            return;
        }
        try {
            CompletionQueue signalled = compChannel.getEvent();
            for (Cq q : cqs) {
                if (q.queue == signalled) {
                    q.hot = true;
                    q.armed = false;
                    q.drainedSinceArm = false;
                    if (++q.unackedEvents >= ACK_BATCH) {
                        q.queue.ackEvents(q.unackedEvents);
                        q.unackedEvents = 0;
                    }
                    try {
                        q.queue.requestNotify(false);
                        q.armed = true;
                    } catch (IOException e) {
                        failChannelsOn(q, e);
                    }
                }
            }
        } catch (IOException e) {
            logger.warn("ibv_get_cq_event failed on {}", device.name(), e);
            for (RdmaChannel ch : channels.values().toArray(new RdmaChannel[0])) {
                ch.fail(e);
            }
        }
    }

    private void failChannelsOn(Cq q, IOException e) {
        for (RdmaChannel ch : channels.values().toArray(new RdmaChannel[0])) {
            if (ch.completionQueue() == q) {
                ch.fail(e);
            }
        }
    }

    /**
     * Destroys, in verbs order, the queues (after acknowledging their events: {@code ibv_destroy_cq} waits for
     * that), the completion channel and the protection domain. Idempotent.
     */
    void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        for (SharedReceives s : shared) {
            s.destroy();
        }
        shared = new SharedReceives[0];
        for (Cq q : cqs) {
            if (q.unackedEvents > 0) {
                q.queue.ackEvents(q.unackedEvents);
                q.unackedEvents = 0;
            }
            VerbsObjects.destroy(q.queue, "CQ");
        }
        cqs = new Cq[0];
        VerbsObjects.destroy(compChannel, "completion channel");
        VerbsObjects.destroy(pd, "PD");
    }

    boolean destroyed() {
        return destroyed;
    }

    /** References held by channels (for the loop's teardown). */
    int references() {
        return references;
    }


    @Override
    public String toString() {
        return "EventLoopDevice(" + device.name() + ", " + channels.size() + " channels, " + cqs.length + " CQs)";
    }

    /** One completion queue and what is reserved in it. */
    static final class Cq {
        final CompletionQueue queue;
        final CompletionArray completions;
        final int capacity;
        int reserved;
        int unackedEvents;
        boolean hot = true;
        /** Armed ({@code ibv_req_notify_cq}) since its last event was taken. */
        boolean armed;
        /** A poll after the last arming found the queue empty (returned fewer than it asked for). */
        boolean drainedSinceArm;

        @Override
        public String toString() {
            return "Cq(hot=" + hot + ", armed=" + armed + ", drained=" + drainedSinceArm + ", reserved=" + reserved + "/" + capacity + ", unacked=" + unackedEvents + ")";
        }

        Cq(CompletionQueue queue, CompletionArray completions, int capacity) {
            this.queue = queue;
            this.completions = completions;
            this.capacity = capacity;
        }
    }
}
