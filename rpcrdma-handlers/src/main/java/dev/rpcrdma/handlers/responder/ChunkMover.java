package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.channel.RdmaAccess;
import dev.rpcrdma.channel.RdmaConnection;
import dev.rpcrdma.channel.RdmaMemory;
import dev.rpcrdma.channel.RdmaRead;
import dev.rpcrdma.channel.RdmaWrite;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.WriteChunk;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.internal.ObjectUtil;

import java.io.IOException;
import java.util.List;

/**
 * Moves a responder's chunk data with one-sided RDMA: the RDMA Reads that pull a call's Read chunks (RFC 8166
 * §3.4.5) and the RDMA Writes that push a reply into the call's Write and Reply chunks (§3.4.6, §3.5.4), as Linux's
 * svc_rdma_rw.c serves both svc_rdma_recvfrom.c and svc_rdma_sendto.c. One per connection, on its event loop.
 */
final class ChunkMover {

    private final RdmaConnection connection;
    private final RpcRdmaStats stats;

    ChunkMover(RdmaConnection connection, RpcRdmaStats stats) {
        this.connection = ObjectUtil.checkNotNull(connection, "connection");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
    }

    /** The RDMA Reads that {@link #pull} posts for {@code chunks}: one per segment that holds data. */
    static int readCount(List<ReadChunk> chunks) {
        int reads = 0;
        for (ReadChunk c : chunks) {
            for (RdmaSegment s : c.segments()) {
                if (s.length() != 0) {
                    reads++;
                }
            }
        }
        return reads;
    }

    /**
     * Pulls {@code chunks} into {@code target}, a buffer of the connection's registered memory pool whose readable
     * bytes hold them all: chunk {@code i} at {@code offsets[i]} bytes into it, or, when {@code offsets} is null, each
     * right after the one before. Every Read's future notifies {@code listener} (set up for {@link #readCount} Reads
     * before calling: a Read can fail at once). The Reads are flushed together. Over iWARP a Read Response is a
     * tagged message aimed at the sink (RFC 5040 §4.4), so the sink's key needs remote write: {@code target} alone is
     * registered for this pull and deregistered after its last Read, never the pool's slab.
     *
     * @return the Reads posted
     * @throws IOException the iWARP sink could not be registered; nothing was posted and {@code target} is untouched
     */
    int pull(ChannelHandlerContext ctx, ByteBuf target, List<ReadChunk> chunks, int[] offsets,
             ChannelFutureListener listener) throws IOException {
        if (offsets != null && offsets.length != chunks.size()) {
            throw new IllegalArgumentException(offsets.length + " offsets for " + chunks.size() + " chunks");
        }
        RdmaMemory memory = connection.memoryPool().memoryOf(target);
        if (memory == null) {
            throw new IllegalArgumentException("the Read sink is not in the connection's memory pool");
        }
        int base = (int) (target.memoryAddress() + target.readerIndex() - memory.address());
        RdmaMemory sink = null;
        if (connection.readSinkNeedsRemoteWrite()) {
            memory = sink = connection.registerMemory(target, RdmaAccess.REMOTE_WRITE);
            base = 0;
        }
        int reads = 0;
        int offset = base;
        ChannelFuture last = null;
        for (int i = 0; i < chunks.size(); i++) {
            if (offsets != null) {
                offset = base + offsets[i];
            }
            stats.recordReadChunk();
            for (RdmaSegment s : chunks.get(i).segments()) {
                if (s.length() != 0) {
                    last = ctx.write(new RdmaRead(memory, offset, s.length(), s.offset(), s.handle()));
                    last.addListener(listener);
                    offset += s.length();
                    reads++;
                }
            }
        }
        if (sink != null) {
            RdmaMemory registered = sink;
            if (last == null) {
                registered.deregister();
            } else {
                last.addListener(f -> registered.deregister()); // completions come in order
            }
        }
        ctx.flush();
        return reads;
    }

    /**
     * Pushes {@code length} bytes at {@code offset} of {@code memory} into {@code chunk}'s segments, in order, with RDMA
     * Writes. Written, not flushed: the reply's Send follows them on the same send queue, so its completion tells
     * that they are done.
     *
     * @return the future of the last Write, or null when nothing was written
     */
    ChannelFuture push(ChannelHandlerContext ctx, RdmaMemory memory, int offset, int length, WriteChunk chunk) {
        ChannelFuture last = null;
        int remaining = length;
        for (RdmaSegment s : chunk.segments()) {
            if (remaining == 0) {
                break;
            }
            int n = (int) Math.min(remaining, s.unsignedLength());
            if (n > 0) {
                last = ctx.write(new RdmaWrite(memory, offset, n, s.offset(), s.handle()));
                offset += n;
                remaining -= n;
            }
        }
        return last;
    }
}
