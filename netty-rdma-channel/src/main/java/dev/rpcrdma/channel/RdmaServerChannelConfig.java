package dev.rpcrdma.channel;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.util.internal.ObjectUtil;

import java.util.Map;

/** {@link RdmaServerChannel} configuration: {@link ChannelOption#SO_BACKLOG} (listen backlog, default 128). */
public final class RdmaServerChannelConfig extends DefaultChannelConfig {
    private volatile int backlog = 128;

    RdmaServerChannelConfig(Channel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG);
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(backlog);
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
        return super.setOption(option, value);
    }

    int backlog() {
        return backlog;
    }
}
