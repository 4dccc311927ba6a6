package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.Fabric;
import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;

/**
 * Common part of the RDMA channels: registration with an {@link RdmaIoHandler}, the channel's own RDMA-CM event
 * channel (watched by the loop) and CM id, and dispatch of CM events and completion-channel readiness.
 */
abstract class AbstractRdmaChannel extends AbstractChannel {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(AbstractRdmaChannel.class);
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    IoRegistration registration;
    /** The loop's handler (the registration's attachment): the fabric and the loop's shared device objects. */
    RdmaIoHandler ioHandler;
    Fabric fabric;
    CmEventChannel cmEvents;
    CmId cmId;
    volatile boolean active;
    volatile boolean open = true;
    volatile InetSocketAddress local;
    volatile InetSocketAddress remote;
    private boolean cmClosed;

    AbstractRdmaChannel(Channel parent) {
        super(parent);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return loop instanceof IoEventLoop && ((IoEventLoop) loop).isCompatible(RdmaUnsafe.class);
    }

    @Override
    protected void doRegister(ChannelPromise promise) {
        ((IoEventLoop) eventLoop()).register((RdmaUnsafe) unsafe()).addListener(f -> {
            if (!f.isSuccess()) {
                promise.setFailure(f.cause());
                return;
            }
            registration = (IoRegistration) f.getNow();
            try {
                ioHandler = registration.attachment();
                fabric = ioHandler.fabric();
                if (cmEvents == null) { // an accepted channel brings the one its id was migrated to
                    cmEvents = fabric.createEventChannel();
                }
                registration.submit(RdmaIoOps.watchCmEvents(cmEvents.fd()));
                onRegistered();
                promise.setSuccess();
            } catch (Throwable t) {
                promise.setFailure(t);
            }
        });
    }

    /** The channel is registered and has its CM event channel. */
    void onRegistered() throws IOException {
    }

    @Override
    protected void doDeregister() {
        IoRegistration r = registration;
        if (r != null) {
            r.cancel();
        }
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    /**
     * Stops watching the RDMA-CM events and leaves the id and its event channel alone: a queue pair created on the id
     * is still being destroyed on another thread ({@code rdma_destroy_id} would free what {@code rdma_destroy_qp}
     * reads). Logged by the caller as a leak.
     */
    final void abandonCm() {
        if (cmClosed) {
            return;
        }
        cmClosed = true;
        IoRegistration r = registration;
        CmEventChannel events = cmEvents;
        if (r != null && events != null) {
            r.submit(RdmaIoOps.unwatch(events.fd()));
        }
    }

    /**
     * Destroys the CM id, then its event channel (every event of the id was acked when it was read); called last by
     * subclasses' {@code doClose}. Idempotent.
     */
    final void closeCm() {
        CmEventChannel events = cmEvents;
        CmId id = cmId;
        if (cmClosed) {
            return;
        }
        cmClosed = true;
        IoRegistration r = registration;
        if (r != null && events != null) {
            r.submit(RdmaIoOps.unwatch(events.fd()));
        }
        if (id != null) {
            try {
                id.close();
            } catch (IOException e) {
                logger.debug("rdma_destroy_id failed", e);
            }
        }
        if (events != null) {
            try {
                events.close();
            } catch (IOException e) {
                logger.debug("rdma_destroy_event_channel failed", e);
            }
        }
    }

    abstract void onCmEvent(CmEvent event) throws Exception;

    private void drainCmEvents() {
        CmEventChannel ch = cmEvents;
        try {
            CmEvent e;
            while (ch != null && isOpen() && (e = ch.poll()) != null) {
                onCmEvent(e);
            }
        } catch (Throwable t) {
            logger.warn("{} failed to handle an RDMA-CM event; closing", this, t);
            pipeline().fireExceptionCaught(t);
            unsafe().close(unsafe().voidPromise());
        }
    }

    /**
     * The unsafe, which is also the channel's {@link RdmaIoHandle}: it drives the channel's I/O. The loop hands it
     * RDMA-CM events ({@link #handle}); completions reach an {@link RdmaChannel} through its loop's
     * {@link EventLoopDevice}. This base has no posted work (a listener); {@link RdmaChannel}'s unsafe has.
     */
    abstract class RdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle {

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            drainCmEvents();
        }

        @Override
        public boolean draining() {
            return false;
        }

        @Override
        public void close() {
            close(voidPromise());
        }

        /** Nothing is posted to a device: torn down at once. */
        @Override
        public boolean terminate(boolean abandon) {
            if (!isOpen()) {
                return true; // closed before: its resources are gone (only the deregistration task was lost)
            }
            boolean wasActive = isActive();
            closeForcibly();
            failOutbound();
            if (wasActive) {
                pipeline().fireChannelInactive();
            }
            pipeline().fireChannelUnregistered();
            return true;
        }

        /** Fails (and releases) everything still in the outbound buffer; the loop no longer runs tasks. */
        final void failOutbound() {
            ChannelOutboundBuffer out = outboundBuffer();
            if (out != null) {
                ClosedChannelException closed = new ClosedChannelException();
                out.addFlush();
                while (out.current() != null) {
                    out.remove(closed); // fails the promise, releases the message
                }
            }
        }
    }
}
