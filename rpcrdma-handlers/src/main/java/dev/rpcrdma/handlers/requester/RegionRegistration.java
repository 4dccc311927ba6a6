package dev.rpcrdma.handlers.requester;

import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.handlers.RpcRdmaStats;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;

/**
 * Chunk memory exposed through a memory region registered per call over exactly the buffer with exactly the rights
 * its chunks need ({@code ibv_reg_mr}), for devices without memory windows ({@code max_mw} 0);
 * ending it deregisters the region ({@code ibv_dereg_mr}: the key is dead when it returns) before the buffer goes
 * back. Two system calls and the pinning of the buffer's pages per exposed buffer, so only calls with chunks pay
 * it. Remote invalidation is never offered with these keys (on such a device it could reach any key of the
 * protection domain), so every region ends locally. Event-loop confined.
 */
final class RegionRegistration implements ChunkRegistration {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RegionRegistration.class);

    private static final class Registered extends Region {
        final RdmaMemory memory;

        Registered(ByteBuf buffer, RdmaMemory memory) {
            super(buffer, memory.rkey(), memory.address());
            this.memory = memory;
        }
    }

    private final RdmaConnection connection;

    RegionRegistration(RdmaConnection connection) {
        this.connection = connection;
    }

    @Override
    public Region register(ChannelHandlerContext ctx, ByteBuf buffer, int access) throws IOException {
        RdmaMemory memory;
        try {
            memory = connection.registerMemory(buffer, access);
        } catch (IOException | RuntimeException e) {
            buffer.release();
            throw e;
        }
        return new Registered(buffer, memory);
    }

    @Override
    public ChannelFuture unregister(Region r, boolean replied, boolean invalidated, int invalidatedRkey,
                                    RpcRdmaStats stats, RequesterCall owner) {
        stats.recordLocalInvalidation();
        ((Registered) r).memory.deregister().addListener(f -> {
            if (!f.isSuccess()) {
                logger.debug("{}: deregistering an RPC's memory region failed", connection, f.cause());
            }
            r.buffer.release();
        });
        return null;
    }
}
