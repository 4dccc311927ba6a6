package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.Fabric;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.concurrent.Ticker;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@link IoHandler} of the RDMA transport, for
 * {@code new MultiThreadIoEventLoopGroup(RdmaIoHandler.newFactory())}: polls the completion queues its channels
 * share per device, then sleeps in {@code epoll_wait}; the package documentation describes the loop.
 */
public final class RdmaIoHandler implements IoHandler {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaIoHandler.class);
    /**
     * A time about 146 years after the executor's ticker started (no overflow when the executor subtracts that start
     * from it), so after the deadline of any task scheduled for this century; a later deadline reads as a shorter
     * delay than it is, and the loop wakes early.
     */
    static final long FAR_FUTURE = Long.MAX_VALUE / 2;
    /** How long {@link #destroy()} waits for the device to flush what closing channels had posted. */
    private static final long TERMINATION_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * How long a loop that is being destroyed waits for queue pair destroys under way ({@link QueuePairTeardown}: a
     * provider may hold a destroy for tens of seconds); after it, what they still hold is leaked, logged.
     */
    private static final long QP_DESTROY_WAIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final ThreadAwareExecutor executor;
    /**
     * The executor, when its queued tasks can be counted and its scheduled tasks run on {@code System.nanoTime()}
     * (Netty's system ticker), else null: {@link #noTasks} then asks {@link IoHandlerContext#canBlock()}, which reads
     * the clock whenever a task is scheduled.
     */
    private final SingleThreadEventExecutor countable;
    /** The loop's free {@link RdmaReceive} holders. */
    final ReceiveHolders receiveHolders;
    private final RdmaIoHandlerConfig config;
    private final Fabric fabric;
    private final EpollSet epoll;
    private final WakeupEventFd wakeupFd;
    /** Queue pairs destroyed off the loop ({@code ibv_destroy_qp} may sleep), their continuations run here. */
    final QueuePairTeardown teardown = new QueuePairTeardown(this);
    private final IntObjectMap<RdmaIoRegistration> byFd = new IntObjectHashMap<>();
    private final List<RdmaIoRegistration> registrations = new ArrayList<>();
    private RdmaIoRegistration[] snapshot = new RdmaIoRegistration[0];
    private boolean snapshotStale;
    /** The loop's shared objects per device (a handful), and by completion-channel fd. */
    private final Map<VerbsDevice, EventLoopDevice> devices = new IdentityHashMap<>();
    private final IntObjectMap<EventLoopDevice> devicesByFd = new IntObjectHashMap<>();
    /** Copy-on-write: a poll may create or destroy one. */
    private EventLoopDevice[] loopDevices = new EventLoopDevice[0];
    /** Devices the last {@link #pollHot} found with a cold (armed) queue. */
    private int coldSkipped;
    private final FdCheckClock fdClock = new FdCheckClock();
    /** What the last successful {@link #busyPoll} found. */
    private int busyWork;
    private boolean shutdownHookAdded;
    private boolean destroyed;
    private RdmaIoHandler(ThreadAwareExecutor executor, RdmaIoHandlerConfig config) {
        this.executor = ObjectUtil.checkNotNull(executor, "executor");
        countable = executor instanceof SingleThreadEventExecutor
                && ((SingleThreadEventExecutor) executor).ticker() == Ticker.systemTicker()
                ? (SingleThreadEventExecutor) executor : null;
        receiveHolders = new ReceiveHolders(executor);
        this.config = config;
        this.fabric = config.fabric();
        this.epoll = new EpollSet(config.maxEvents());
        this.wakeupFd = new WakeupEventFd();
        try {
            epoll.add(wakeupFd.intValue());
        } catch (IOException e) {
            throw new IllegalStateException("cannot watch the wakeup eventfd", e);
        }
        // Last: from here on destroy() runs and undoes both.
        QueuePairTeardown.loopStarted();
        fabric.loopStarted();
    }

    /**
     * A factory with the default configuration: the native fabric (or the one {@code -Ddev.rpcrdma.fabric} names).
     *
     * @throws IllegalStateException when the native fabric is not available here (see {@link Rdma})
     */
    public static IoHandlerFactory newFactory() {
        return newFactory(new RdmaIoHandlerConfig());
    }

    /**
     * A factory with the given configuration (copied).
     *
     * @throws IllegalStateException when the configuration names no fabric and the native one is not available
     */
    public static IoHandlerFactory newFactory(RdmaIoHandlerConfig config) {
        RdmaIoHandlerConfig copy = ObjectUtil.checkNotNull(config, "config").copy();
        return executor -> new RdmaIoHandler(executor, copy);
    }

    /** The fabric this loop's channels use. */
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public int run(IoHandlerContext context) {
        int work = teardown.runCompleted() + pollHot(false);
        if (work > 0) {
            return work + checkFdsIfDue();
        }
        if (!noTasks(context)) {
            return checkFds();
        }
        long busyNanos = config.busyPollNanos();
        if (busyNanos > 0 && busyPoll(context, busyNanos)) {
            return busyWork;
        }
        int total = 0;
        while (true) {
            // Arm, then poll again: closes the race with completions that arrived before arming.
            work = armAndRepoll();
            if (work > 0) {
                return total + work;
            }
            // Announced as asleep: wakeup() writes the eventfd. No deadline is asked for (Netty's deadlineNanos()
            // reads the clock when no task is scheduled).
            wakeupFd.sleeping();
            int timeout;
            try {
                // After announcing the sleep: a teardown thread that finished before it did not write the eventfd.
                timeout = noTasks(context) && !teardown.hasCompleted() ? timeoutMillis(context) : 0;
                work = waitAndDispatch(timeout);
            } finally {
                wakeupFd.awake();
            }
            work += teardown.runCompleted() + pollHot(false);
            total += work;
            if (work == 0 || timeout == 0 || busyNanos > 0 || !sleepsAgain()) {
                return total;
            }
        }
    }

    /**
     * After a wake-up whose work left every queue cold (armed and drained: the C requester's loop, one call in
     * flight), the loop may go back to sleep without returning to the executor, whose round (a look at its scheduled
     * tasks, a clock read, its queues) would find nothing to do: no task is queued, none is due (the wait before was
     * not cut short by one: it had a timeout), the executor runs (not shutting down or suspending: those are seen
     * between rounds) and it can count its tasks ({@link #countable}).
     */
    private boolean sleepsAgain() {
        SingleThreadEventExecutor e = countable;
        if (e == null || e.isShuttingDown() || e.isSuspended() || e.pendingTasks() != 0) {
            return false;
        }
        for (EventLoopDevice d : loopDevices) {
            if (d.anyHot()) {
                return false;
            }
        }
        return true;
    }

    /**
     * No task is queued for the loop (checked again after the sleep is announced: a task queued before that wrote no
     * eventfd). A scheduled task that is due needs no separate check, which would read the clock: it makes
     * {@link #timeoutMillis} 0, so the loop only looks at its fds and returns to run it.
     */
    private boolean noTasks(IoHandlerContext context) {
        SingleThreadEventExecutor e = countable;
        return e != null ? e.pendingTasks() == 0 : context.canBlock();
    }

    /**
     * Spins on {@link #pollHot} for about {@code busyNanos}; true (with the work in {@link #busyWork}) if it found
     * work. The clock is read once every {@value FdCheckClock#ROUNDS_PER_CLOCK_READ} empty rounds, not per round:
     * {@code System.nanoTime()} is a system call wherever the clocksource has no vDSO (HPET or ACPI PM timer in a
     * virtual machine, where it can cost more than the poll itself), and the latency of noticing a
     * completion is the length of one round. So the loop spins up to that many rounds longer than asked.
     */
    private boolean busyPoll(IoHandlerContext context, long busyNanos) {
        long until = 0;
        boolean started = false;
        int rounds = 0;
        do {
            int work = pollHot(false);
            if (coldSkipped > 0) {
                work += checkFds();
            }
            if (++rounds == FdCheckClock.ROUNDS_PER_CLOCK_READ) {
                rounds = 0;
                long now = System.nanoTime();
                if (fdClock.due(now)) {
                    work += checkFds();
                }
                if (!started) {
                    started = true;
                    until = now + busyNanos;
                } else if (work == 0 && now - until >= 0) {
                    return false;
                }
            }
            if (work > 0) {
                busyWork = work;
                return true;
            }
        } while (context.canBlock());
        return false;
    }

    /** Looks at the fds without waiting if some channel is cold or the last look is too old ({@link FdCheckClock}). */
    private int checkFdsIfDue() {
        if (coldSkipped > 0) {
            return checkFds();
        }
        return fdClock.dueThisRound() ? checkFds() : 0;
    }

    private int checkFds() {
        return waitAndDispatch(0);
    }

    /**
     * The {@code epoll_wait} timeout until the loop's next scheduled task, rounded up to whole milliseconds (0 if it
     * is due). The delay comes from {@link IoHandlerContext#delayNanos}, on the executor's own clock (Netty's
     * scheduled-task ticker, not {@code System.nanoTime()}), as in {@code EpollIoHandler}. The clock is read only
     * when a task is scheduled: the delay from a time later than any deadline ({@link #FAR_FUTURE}) is 0 then, and
     * without one it is what the executor answers at any time (its purge interval).
     */
    static int timeoutMillis(IoHandlerContext context) {
        long delay = context.delayNanos(FAR_FUTURE);
        if (delay <= 0) {
            delay = context.delayNanos(System.nanoTime());
            if (delay <= 0) {
                return 0;
            }
        }
        long roundedUp = Math.min(delay, Long.MAX_VALUE - 999_999) + 999_999;
        return (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(roundedUp));
    }

    private RdmaIoRegistration[] snapshot() {
        if (snapshotStale) {
            snapshot = registrations.toArray(new RdmaIoRegistration[0]);
            snapshotStale = false;
        }
        return snapshot;
    }

    /** Polls the hot queues of every device (all queues if {@code includeArmed}); an empty poll leaves one cold. */
    private int pollHot(boolean includeArmed) {
        int work = 0;
        int cold = 0;
        for (EventLoopDevice d : loopDevices) {
            work += d.poll(includeArmed);
            if (d.anyCold()) {
                cold++;
            }
        }
        coldSkipped = cold;
        return work;
    }

    /**
     * Arms the hot queues and polls once more if one was armed now (a completion that came before the arming raises
     * no event); a queue armed and drained since its last event needs neither ({@link EventLoopDevice#arm}).
     */
    private int armAndRepoll() {
        boolean armed = false;
        for (EventLoopDevice d : loopDevices) {
            armed |= d.arm();
        }
        if (armed) {
            return pollHot(true);
        }
        int cold = 0;
        for (EventLoopDevice d : loopDevices) {
            if (d.anyCold()) {
                cold++;
            }
        }
        coldSkipped = cold;
        return 0;
    }

    /**
     * The loop's shared objects on {@code device}, created (PD, completion channel, watched by this loop) when the
     * first channel of the loop sets up its queue pair there. Loop thread.
     */
    EventLoopDevice loopDevice(VerbsDevice device) throws IOException {
        EventLoopDevice d = devices.get(device);
        if (d == null) {
            if (destroyed) {
                throw new IllegalStateException("event loop destroyed");
            }
            d = EventLoopDevice.create(this, device, config.completionBatch(), config.busyPollNanos() == 0);
            try {
                epoll.add(d.fd());
            } catch (IOException e) {
                d.destroy();
                throw e;
            }
            devices.put(device, d);
            devicesByFd.put(d.fd(), d);
            EventLoopDevice[] more = Arrays.copyOf(loopDevices, loopDevices.length + 1);
            more[loopDevices.length] = d;
            loopDevices = more;
        }
        return d;
    }

    /** The last channel released {@code d}: unwatch its completion channel and destroy it. Loop thread. */
    void destroyLoopDevice(EventLoopDevice d) {
        if (d.destroyed() || devices.get(d.device) != d) {
            return;
        }
        devices.remove(d.device);
        devicesByFd.remove(d.fd());
        try {
            epoll.remove(d.fd());
        } catch (IOException e) {
            logger.debug("epoll_ctl(DEL) failed for the completion channel of {}", d, e);
        }
        List<EventLoopDevice> rest = new ArrayList<>(Arrays.asList(loopDevices));
        rest.remove(d);
        loopDevices = rest.toArray(new EventLoopDevice[0]);
        d.destroy();
    }

    /** Completion queues of this loop (all devices); for tests and measurements. Loop thread. */
    int completionQueues() {
        int n = 0;
        for (EventLoopDevice d : loopDevices) {
            n += d.completionQueues();
        }
        return n;
    }

    private int waitAndDispatch(int timeoutMillis) {
        int ready;
        try {
            ready = epoll.wait(timeoutMillis);
        } catch (IOException e) {
            logger.warn("epoll_wait failed", e);
            return 0;
        } finally {
            fdClock.looked();
        }
        int work = 0;
        for (int i = 0; i < ready; i++) {
            int fd = epoll.fd(i);
            if (fd == wakeupFd.intValue()) {
                wakeupFd.consume();
                continue;
            }
            EventLoopDevice d = devicesByFd.get(fd);
            if (d != null) {
                d.completionChannelReady();
                work++;
                continue;
            }
            RdmaIoRegistration r = byFd.get(fd);
            if (r == null || !r.valid) {
                continue;
            }
            work++;
            try {
                r.handle.handle(r, RdmaIoEvent.CM_EVENTS);
            } catch (Throwable t) {
                logger.warn("unexpected exception from {}", r.handle, t);
            }
        }
        return work;
    }

    @Override
    public void prepareToDestroy() {
        closeAll();
    }

    /**
     * Closes every channel the normal way, only while the executor still runs the tasks a close schedules, and waits
     * (bounded) for their flush completions through the normal poll path, sleeping in epoll_wait between them: the
     * loop is shutting down and would otherwise end before the delayed closes could finish.
     */
    private void closeAll() {
        if (destroyed) {
            return;
        }
        for (RdmaIoRegistration r : registrations.toArray(new RdmaIoRegistration[0])) {
            try {
                r.handle.close();
            } catch (Exception e) {
                logger.debug("failed to close {}", r.handle, e);
            }
        }
        long deadline = System.nanoTime() + TERMINATION_TIMEOUT_NANOS;
        while (anyDraining()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break; // destroy() abandons what is left
            }
            waitForDrain(left);
        }
    }

    /**
     * One step of waiting for closing channels while the loop shuts down: their flush completions through the normal
     * poll path, the continuations of their queue pair destroys (polled every few milliseconds: the eventfd is not
     * written for them while the loop is not announced asleep).
     */
    private void waitForDrain(long leftNanos) {
        boolean settling = false;
        for (RdmaIoRegistration r : snapshot()) {
            if (r.valid && r.handle.draining()) {
                r.handle.checkDrain();
                settling = true;
            }
        }
        if (teardown.runCompleted() + armAndRepoll() == 0) {
            long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNanos));
            // Every few milliseconds while a destroy is under way or a close waits on a deadline (no timer runs).
            waitAndDispatch((int) (teardown.pending() > 0 || settling ? Math.min(10, millis) : millis));
        }
    }

    private boolean anyDraining() {
        for (RdmaIoRegistration r : snapshot()) {
            if (r.valid && r.handle.draining()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        // The executor no longer accepts tasks, so close() could not finish (its deregistration is a task). Whatever
        // is still registered (registered after the shutdown hook ran, or still draining) is torn down here, on the
        // loop thread: each starts closing, then the flush completions come through the normal poll path, this
        // thread sleeping in epoll_wait between them (as io_uring's handler waits for its ring when destroyed).
        List<RdmaIoRegistration> pending = new ArrayList<>(registrations);
        long start = System.nanoTime();
        while (true) {
            pending.removeIf(this::terminated);
            long left = start + (teardown.pending() > 0 ? QP_DESTROY_WAIT_NANOS : TERMINATION_TIMEOUT_NANOS)
                    - System.nanoTime();
            if (pending.isEmpty() || left <= 0) {
                break;
            }
            waitForDrain(left);
        }
        for (RdmaIoRegistration r : pending) {
            try {
                r.handle.terminate(true);
            } catch (Throwable t) {
                logger.warn("failed to tear down {}", r.handle, t);
            }
        }
        for (RdmaIoRegistration r : registrations.toArray(new RdmaIoRegistration[0])) {
            r.cancel();
        }
        for (EventLoopDevice d : loopDevices.clone()) {
            if (d.references() == 0) {
                destroyLoopDevice(d);
            } else {
                logger.error("{}: queue pairs that could not be destroyed still use it; leaking it", d);
            }
        }
        try {
            epoll.close();
        } catch (IOException e) {
            logger.debug("failed to close the epoll fd", e);
        }
        // A wakeup() from another thread (e.g. shutdownGracefully) may race with this: WakeupEventFd.close().
        wakeupFd.close();
        // The last loop of the JVM ends the teardown threads, the last loop of a fabric its threads.
        QueuePairTeardown.loopStopped();
        fabric.loopStopped();
    }

    /** Lets {@code r}'s handle finish terminating; true once it is done (a failure counts as done). */
    private boolean terminated(RdmaIoRegistration r) {
        try {
            return r.handle.terminate(false);
        } catch (Throwable t) {
            logger.warn("failed to tear down {}", r.handle, t);
            return true;
        }
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        RdmaIoHandle h = (RdmaIoHandle) handle;
        if (!shutdownHookAdded && executor instanceof SingleThreadEventExecutor) {
            // register() runs on the loop thread: the hook is added at once. It runs in confirmShutdown(), while
            // the executor still runs tasks, even when a zero quiet period skips prepareToDestroy().
            shutdownHookAdded = true;
            ((SingleThreadEventExecutor) executor).addShutdownHook(this::closeAll);
        }
        RdmaIoRegistration r = new RdmaIoRegistration(this, executor, epoll, h);
        registrations.add(r);
        snapshotStale = true;
        h.registered();
        return r;
    }

    @Override
    public void wakeup() {
        if (executor.isExecutorThread(Thread.currentThread())) {
            return;
        }
        wakeupFd.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    /** {@code r} watches {@code fd}. Loop thread. */
    void watched(int fd, RdmaIoRegistration r) {
        byFd.put(fd, r);
    }

    /** {@code fd} is no longer watched. Loop thread. */
    void unwatched(int fd) {
        byFd.remove(fd);
    }

    /** {@code r} was cancelled. Loop thread. */
    void cancelled(RdmaIoRegistration r) {
        registrations.remove(r);
        snapshotStale = true;
    }
}
