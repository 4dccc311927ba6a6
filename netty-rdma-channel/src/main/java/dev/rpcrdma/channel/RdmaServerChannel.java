package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.fabric.FabricException;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ServerChannel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * A listening RDMA-CM id ({@code rdma_listen}) as a Netty server channel, for {@code ServerBootstrap}. Each
 * {@code RDMA_CM_EVENT_CONNECT_REQUEST} becomes a child {@link RdmaChannel} (read by the acceptor like a socket),
 * carrying the client's private data; the child accepts after its registration (see {@link RdmaChannel}).
 */
public final class RdmaServerChannel extends AbstractRdmaChannel implements ServerChannel {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RdmaServerChannel.class);
    /** Listens tried on "any port" (port 0) while each port the CM picks is taken. */
    private static final int ANY_PORT_ATTEMPTS = 4;

    private final RdmaServerChannelConfig config = new RdmaServerChannelConfig(this);

    public RdmaServerChannel() {
        super(null);
    }

    @Override
    public RdmaServerChannelConfig config() {
        return config;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return null;
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new RdmaUnsafe() {
            @Override
            public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
                promise.setFailure(new UnsupportedOperationException("a server channel does not connect"));
            }
        };
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        if (!(localAddress instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("unsupported address type: " + localAddress);
        }
        InetSocketAddress address = (InetSocketAddress) localAddress;
        for (int attempt = 1; ; attempt++) {
            cmId = cmEvents.createId(this);
            cmId.bind(address);
            try {
                cmId.listen(config.backlog());
                break;
            } catch (FabricException e) {
                // Any port: on iWARP the CM picks it from its own port space and the provider then needs the same
                // TCP port, which a socket of the host may hold (EADDRINUSE from rdma_listen); another port will do.
                if (address.getPort() != 0 || e.errno() != FabricException.EADDRINUSE || attempt == ANY_PORT_ATTEMPTS) {
                    throw e;
                }
                logger.debug("{}: the port the CM picked is taken ({}); trying another", this, e.getMessage());
                CmId taken = cmId;
                cmId = null;
                taken.close();
            }
        }
        local = cmId.localAddress();
        active = true;
    }

    @Override
    void onCmEvent(CmEvent event) {
        if (event.type() != CmEventType.CONNECT_REQUEST) {
            logger.debug("{} ignores {}", this, event);
            return;
        }
        // The new id arrived on this listener's event channel: move it to an event channel of its own at once, so
        // that the child owns everything it uses whichever loop it is registered with, and this listener's channel
        // can be destroyed (close, loop shutdown) while children are still being set up or torn down elsewhere.
        CmEventChannel events = null;
        RdmaChannel child;
        try {
            events = fabric.createEventChannel();
            event.id().migrate(events);
            child = new RdmaChannel(this, event.id(), events, event.privateData());
        } catch (Throwable t) {
            logger.warn("{} cannot create a channel for a connect request; rejecting", this, t);
            try {
                event.id().reject(null);
            } catch (IOException e) {
                logger.debug("reject failed", e);
            }
            try {
                event.id().close();
                if (events != null) {
                    events.close();
                }
            } catch (IOException e) {
                logger.debug("rdma_destroy_id / rdma_destroy_event_channel failed", e);
            }
            return;
        }
        ChannelPipeline p = pipeline();
        p.fireChannelRead(child);
        p.fireChannelReadComplete();
    }

    @Override
    protected void doBeginRead() {
        // Connect requests are always delivered (RDMA-CM has no accept queue to leave them in).
    }

    @Override
    protected void doClose() {
        active = false;
        open = false;
        closeCm();
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        throw new UnsupportedOperationException();
    }

    @Override
    protected Object filterOutboundMessage(Object msg) {
        throw new UnsupportedOperationException();
    }
}
