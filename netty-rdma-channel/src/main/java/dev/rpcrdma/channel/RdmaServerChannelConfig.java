package dev.rpcrdma.channel;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.util.internal.ObjectUtil;

import java.util.Map;

/**
 * {@link RdmaServerChannel} configuration: {@link ChannelOption#SO_BACKLOG} (listen backlog, default 128) and
 * {@link RdmaChannelOption#SHARED_RECEIVE_QUEUE_DEPTH} (accepted connections share a receive queue per loop; default
 * 0, off).
 */
public final class RdmaServerChannelConfig extends DefaultChannelConfig {
    private volatile int backlog = 128;
    private volatile int sharedReceiveQueueDepth;

    RdmaServerChannelConfig(Channel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG, RdmaChannelOption.SHARED_RECEIVE_QUEUE_DEPTH);
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(backlog);
        }
        if (option == RdmaChannelOption.SHARED_RECEIVE_QUEUE_DEPTH) {
            return (T) Integer.valueOf(sharedReceiveQueueDepth);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_BACKLOG) {
            backlog = ObjectUtil.checkPositiveOrZero((Integer) value, "backlog");
            return true;
        }
        if (option == RdmaChannelOption.SHARED_RECEIVE_QUEUE_DEPTH) {
            sharedReceiveQueueDepth = ObjectUtil.checkPositiveOrZero((Integer) value, "sharedReceiveQueueDepth");
            return true;
        }
        return super.setOption(option, value);
    }

    int backlog() {
        return backlog;
    }

    /** Receives of the shared receive queue of accepted connections; 0: each has its own receive queue. */
    int sharedReceiveQueueDepth() {
        return sharedReceiveQueueDepth;
    }
}
