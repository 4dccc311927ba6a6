package dev.rpcrdma.channel;

import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;

/**
 * One channel's registration with an {@link RdmaIoHandler}: the fds it watches ({@link RdmaIoOps}); its attachment
 * is the handler (the fabric, the loop's devices).
 */
final class RdmaIoRegistration implements IoRegistration {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaIoHandler.class);

    private final RdmaIoHandler handler;
    private final ThreadAwareExecutor executor;
    private final EpollSet epoll;
    final RdmaIoHandle handle;
    private final IntObjectMap<Integer> kinds = new IntObjectHashMap<>(4);
    boolean valid = true;

    RdmaIoRegistration(RdmaIoHandler handler, ThreadAwareExecutor executor, EpollSet epoll, RdmaIoHandle handle) {
        this.handler = handler;
        this.executor = executor;
        this.epoll = epoll;
        this.handle = handle;
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> T attachment() {
        return (T) handler;
    }

    @Override
    public long submit(IoOps ops) {
        RdmaIoOps o = (RdmaIoOps) ops;
        if (!executor.isExecutorThread(Thread.currentThread())) {
            try {
                executor.execute(() -> submit(ops));
            } catch (RejectedExecutionException e) {
                return -1; // the loop is gone, and its epoll set with it
            }
            return 0;
        }
        if (!valid) {
            return -1;
        }
        try {
            if (o.add) {
                if (kinds.put(o.fd, Integer.valueOf(o.kind)) == null) {
                    epoll.add(o.fd);
                }
                handler.watched(o.fd, this);
            } else if (kinds.remove(o.fd) != null) {
                handler.unwatched(o.fd);
                epoll.remove(o.fd);
            }
        } catch (IOException e) {
            throw new IllegalStateException("epoll_ctl failed for fd " + o.fd, e);
        }
        return 0;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public boolean cancel() {
        if (!valid) {
            return false;
        }
        if (!executor.isExecutorThread(Thread.currentThread())) {
            try {
                executor.execute(this::cancel);
            } catch (RejectedExecutionException e) {
                return false; // destroy() cancels what is left on the loop thread
            }
            return true;
        }
        valid = false;
        for (int fd : kinds.keySet()) {
            handler.unwatched(fd);
            try {
                epoll.remove(fd);
            } catch (IOException e) {
                logger.debug("epoll_ctl(DEL) failed for fd {}", fd, e);
            }
        }
        kinds.clear();
        handler.cancelled(this);
        handle.unregistered();
        return true;
    }
}
