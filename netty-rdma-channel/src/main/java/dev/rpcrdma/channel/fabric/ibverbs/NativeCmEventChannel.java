package dev.rpcrdma.channel.fabric.ibverbs;

import dev.rpcrdma.channel.fabric.CmEvent;
import dev.rpcrdma.channel.fabric.CmEventChannel;
import dev.rpcrdma.channel.fabric.CmEventType;
import dev.rpcrdma.channel.fabric.CmId;
import dev.rpcrdma.channel.verbs.RdmaCm;
import dev.rpcrdma.channel.verbs.RdmaCmConstants;

import java.io.IOException;

/** {@code rdma_event_channel} with a non-blocking fd; events are copied and acked by the bindings. */
final class NativeCmEventChannel implements CmEventChannel {
    private final NativeFabric fabric;
    final long channel;
    private boolean closed;

    NativeCmEventChannel(NativeFabric fabric, long channel) {
        this.fabric = fabric;
        this.channel = channel;
    }

    @Override
    public int fd() {
        return RdmaCm.eventChannelFd(channel);
    }

    @Override
    public CmId createId(Object context) throws IOException {
        long id = RdmaCm.createId(channel, 0, RdmaCmConstants.RDMA_PS_TCP);
        NativeCmId cmId = new NativeCmId(fabric, id, context);
        fabric.ids.put(id, cmId);
        return cmId;
    }

    @Override
    public CmEvent poll() throws IOException {
        if (closed) {
            return null; // never rdma_get_cm_event on a destroyed channel
        }
        return RdmaCm.getCmEvent(channel, this::event);
    }

    private CmEvent event(int type, int status, long rawId, long rawListenId, byte[] privateData,
                          int responderResources, int initiatorDepth) {
        NativeCmId id;
        NativeCmId listen = null;
        if (type == CmEventType.CONNECT_REQUEST) {
            id = new NativeCmId(fabric, rawId, null);
            fabric.ids.put(rawId, id);
            listen = fabric.ids.get(rawListenId);
        } else {
            id = fabric.ids.get(rawId);
        }
        return new CmEvent(type, status, id, listen, privateData);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            RdmaCm.destroyEventChannel(channel);
        }
    }
}
