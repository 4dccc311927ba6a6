package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.ConnectionParameters;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.util.internal.ObjectUtil;

import java.util.Map;

import static dev.rpcrdma.channel.RdmaChannelOption.AUTO_ACCEPT;
import static dev.rpcrdma.channel.RdmaChannelOption.INITIATOR_DEPTH;
import static dev.rpcrdma.channel.RdmaChannelOption.MAX_INLINE_DATA;
import static dev.rpcrdma.channel.RdmaChannelOption.MAX_SEND_SIZE;
import static dev.rpcrdma.channel.RdmaChannelOption.MEMORY_POOL_MAX_BYTES;
import static dev.rpcrdma.channel.RdmaChannelOption.MEMORY_POOL_SLAB_SIZE;
import static dev.rpcrdma.channel.RdmaChannelOption.PRIVATE_DATA;
import static dev.rpcrdma.channel.RdmaChannelOption.RECEIVE_BUFFER_SIZE;
import static dev.rpcrdma.channel.RdmaChannelOption.RECEIVE_QUEUE_DEPTH;
import static dev.rpcrdma.channel.RdmaChannelOption.RECEIVE_SPARE_BUFFERS;
import static dev.rpcrdma.channel.RdmaChannelOption.RESPONDER_RESOURCES;
import static dev.rpcrdma.channel.RdmaChannelOption.RETRY_COUNT;
import static dev.rpcrdma.channel.RdmaChannelOption.RNR_RETRY_COUNT;
import static dev.rpcrdma.channel.RdmaChannelOption.SEND_QUEUE_DEPTH;

/** The {@link RdmaChannel} configuration: the {@link RdmaChannelOption}s plus Netty's standard options. */
public final class RdmaChannelConfig extends DefaultChannelConfig {
    private volatile byte[] privateData = new byte[0];
    private volatile boolean autoAccept = true;
    private volatile int sendQueueDepth = 128;
    private volatile int receiveQueueDepth = 64;
    private volatile int receiveBufferSize = 4096;
    private volatile int receiveSpareBuffers = 16;
    private volatile int maxSendSize = 4096;
    private volatile int maxInlineData = 128;
    private volatile int rnrRetryCount = 7;
    private volatile int retryCount = 6;
    private volatile int responderResources = 16;
    private volatile int initiatorDepth = 16;
    private volatile int memoryPoolSlabSize = 4 << 20;
    private volatile long memoryPoolMaxBytes = 64L << 20;

    RdmaChannelConfig(Channel channel) {
        super(channel);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), PRIVATE_DATA, AUTO_ACCEPT, SEND_QUEUE_DEPTH, RECEIVE_QUEUE_DEPTH,
                RECEIVE_BUFFER_SIZE, RECEIVE_SPARE_BUFFERS, MAX_SEND_SIZE, MAX_INLINE_DATA, RNR_RETRY_COUNT,
                RETRY_COUNT, RESPONDER_RESOURCES, INITIATOR_DEPTH, MEMORY_POOL_SLAB_SIZE, MEMORY_POOL_MAX_BYTES);
    }

    @SuppressWarnings("unchecked")
    @Override
    public <T> T getOption(ChannelOption<T> option) {
        if (option == PRIVATE_DATA) {
            return (T) privateData.clone();
        }
        if (option == AUTO_ACCEPT) {
            return (T) Boolean.valueOf(autoAccept);
        }
        if (option == SEND_QUEUE_DEPTH) {
            return (T) Integer.valueOf(sendQueueDepth);
        }
        if (option == RECEIVE_QUEUE_DEPTH) {
            return (T) Integer.valueOf(receiveQueueDepth);
        }
        if (option == RECEIVE_BUFFER_SIZE) {
            return (T) Integer.valueOf(receiveBufferSize);
        }
        if (option == RECEIVE_SPARE_BUFFERS) {
            return (T) Integer.valueOf(receiveSpareBuffers);
        }
        if (option == MAX_SEND_SIZE) {
            return (T) Integer.valueOf(maxSendSize);
        }
        if (option == MEMORY_POOL_SLAB_SIZE) {
            return (T) Integer.valueOf(memoryPoolSlabSize);
        }
        if (option == MEMORY_POOL_MAX_BYTES) {
            return (T) Long.valueOf(memoryPoolMaxBytes);
        }
        if (option == MAX_INLINE_DATA) {
            return (T) Integer.valueOf(maxInlineData);
        }
        if (option == RNR_RETRY_COUNT) {
            return (T) Integer.valueOf(rnrRetryCount);
        }
        if (option == RETRY_COUNT) {
            return (T) Integer.valueOf(retryCount);
        }
        if (option == RESPONDER_RESOURCES) {
            return (T) Integer.valueOf(responderResources);
        }
        if (option == INITIATOR_DEPTH) {
            return (T) Integer.valueOf(initiatorDepth);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == PRIVATE_DATA) {
            byte[] data = (byte[]) value;
            if (data.length > ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA) {
                throw new IllegalArgumentException("private data of " + data.length + " bytes exceeds "
                        + ConnectionParameters.MAX_ACCEPT_PRIVATE_DATA);
            }
            privateData = data.clone();
        } else if (option == AUTO_ACCEPT) {
            autoAccept = (Boolean) value;
        } else if (option == SEND_QUEUE_DEPTH) {
            sendQueueDepth = ObjectUtil.checkInRange((Integer) value, 1, 16384, "SEND_QUEUE_DEPTH");
        } else if (option == RECEIVE_QUEUE_DEPTH) {
            receiveQueueDepth = ObjectUtil.checkInRange((Integer) value, 1, 16384, "RECEIVE_QUEUE_DEPTH");
        } else if (option == RECEIVE_BUFFER_SIZE) {
            receiveBufferSize = ObjectUtil.checkInRange((Integer) value, 1, 1 << 24, "RECEIVE_BUFFER_SIZE");
        } else if (option == RECEIVE_SPARE_BUFFERS) {
            receiveSpareBuffers = ObjectUtil.checkInRange((Integer) value, 0, 16384, "RECEIVE_SPARE_BUFFERS");
        } else if (option == MAX_SEND_SIZE) {
            maxSendSize = ObjectUtil.checkInRange((Integer) value, 1, 1 << 24, "MAX_SEND_SIZE");
        } else if (option == MEMORY_POOL_SLAB_SIZE) {
            memoryPoolSlabSize = ObjectUtil.checkInRange((Integer) value, RdmaMemoryPool.MIN_PIECE,
                    RdmaEndpoint.MAX_SLAB_BYTES, "MEMORY_POOL_SLAB_SIZE");
        } else if (option == MEMORY_POOL_MAX_BYTES) {
            memoryPoolMaxBytes = ObjectUtil.checkPositive((Long) value, "MEMORY_POOL_MAX_BYTES");
        } else if (option == MAX_INLINE_DATA) {
            maxInlineData = ObjectUtil.checkInRange((Integer) value, 0, 1024, "MAX_INLINE_DATA");
        } else if (option == RNR_RETRY_COUNT) {
            rnrRetryCount = ObjectUtil.checkInRange((Integer) value, 0, 7, "RNR_RETRY_COUNT");
        } else if (option == RETRY_COUNT) {
            retryCount = ObjectUtil.checkInRange((Integer) value, 0, 7, "RETRY_COUNT");
        } else if (option == RESPONDER_RESOURCES) {
            responderResources = ObjectUtil.checkInRange((Integer) value, 0, 255, "RESPONDER_RESOURCES");
        } else if (option == INITIATOR_DEPTH) {
            initiatorDepth = ObjectUtil.checkInRange((Integer) value, 0, 255, "INITIATOR_DEPTH");
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    byte[] privateData() {
        return privateData;
    }

    boolean autoAccept() {
        return autoAccept;
    }

    int sendQueueDepth() {
        return sendQueueDepth;
    }

    int receiveQueueDepth() {
        return receiveQueueDepth;
    }

    int receiveBufferSize() {
        return receiveBufferSize;
    }

    int receiveSpareBuffers() {
        return receiveSpareBuffers;
    }

    int maxSendSize() {
        return maxSendSize;
    }

    int memoryPoolSlabSize() {
        return memoryPoolSlabSize;
    }

    long memoryPoolMaxBytes() {
        return memoryPoolMaxBytes;
    }

    int maxInlineData() {
        return maxInlineData;
    }

    ConnectionParameters connectionParameters(byte[] privateData) {
        return new ConnectionParameters(privateData, responderResources, initiatorDepth, retryCount, rnrRetryCount);
    }
}
