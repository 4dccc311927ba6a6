package dev.rpcrdma.handlers;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaMemoryPool;
import dev.rpcrdma.channel.RdmaMemoryWindow;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link RdmaConnection} for handler unit tests over an {@code EmbeddedChannel}: private data, posted receives
 * and the send size are what the test sets; memory cannot be registered (chunk paths are tested end to end on the
 * software fabric); every {@link #setUpperLayerWritable} is recorded and, once {@link #attach attached}, applied to
 * the channel's writability as {@code RdmaChannel} does. Test thread only.
 */
public final class FakeRdmaConnection implements RdmaConnection {

    /** The user-defined writability bit the fake uses on an attached channel. */
    static final int UPPER_LAYER_WRITABILITY_BIT = 2;

    private byte[] peerPrivateData = new byte[0];
    private int postedReceives = 32;
    private int maxSendSize = 4096;
    private Channel channel;
    /** Every value passed to {@link #setUpperLayerWritable}, in order. */
    public final List<Boolean> writabilityChanges = new ArrayList<>();
    /** Registrations and window allocations attempted (all refused). */
    public int memoryRequests;

    /** Applies writability changes to {@code channel}; returns this. */
    public FakeRdmaConnection attach(Channel channel) {
        this.channel = channel;
        return this;
    }

    public FakeRdmaConnection peerPrivateData(byte[] data) {
        this.peerPrivateData = data.clone();
        return this;
    }

    public FakeRdmaConnection postedReceives(int n) {
        this.postedReceives = n;
        return this;
    }

    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public int postedReceives() {
        return postedReceives;
    }

    @Override
    public int maxSendSize() {
        return maxSendSize;
    }

    @Override
    public RdmaMemory registerMemory(ByteBuf buffer, int access) throws IOException {
        memoryRequests++;
        throw new IOException("fake connection: no memory registration");
    }

    @Override
    public boolean localInvalidateSupported() {
        return true;
    }

    @Override
    public RdmaMemoryPool memoryPool() {
        memoryRequests++;
        throw new IllegalStateException("fake connection: no memory pool");
    }

    @Override
    public RdmaMemoryWindow allocateMemoryWindow() throws IOException {
        memoryRequests++;
        throw new IOException("fake connection: no memory windows");
    }

    @Override
    public void setUpperLayerWritable(boolean writable) {
        writabilityChanges.add(writable);
        ChannelOutboundBuffer out = channel == null ? null : channel.unsafe().outboundBuffer();
        if (out != null) {
            out.setUserDefinedWritability(UPPER_LAYER_WRITABILITY_BIT, writable);
        }
    }
}
