package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;
import dev.rpcrdma.handlers.header.RpcRdmaHeader;
import dev.rpcrdma.handlers.header.WriteChunk;
import dev.rpcrdma.oncrpc.xdr.DdpItem;

import java.util.ArrayList;
import java.util.List;

/**
 * The chunk arithmetic of one reply, decided before any memory is touched: which DDP-eligible result items go into
 * the call's Write chunks (item i into chunk i, RFC 8166 §4.3.2.1, unless that chunk is empty, §4.3.2.3, or too
 * small), the Write list returned (every provided chunk, unused ones with zero lengths, §3.4.6), how many bytes stay
 * in the inline stream and which ranges of it they are. Also the segment filling of a returned chunk and the
 * single-handle rule of Send With Invalidate (RFC 8797 §4.1). A value, built and used on the event loop.
 */
final class ReplyPlacement {

    /** DDP-eligible items in the reply. */
    final List<DdpItem> items;
    /** Items that may go into a Write chunk (0 without RDMA). */
    final int candidates;
    /** For each candidate: placed into its Write chunk. */
    final boolean[] inChunk;
    /** Items placed. */
    final int placed;
    /** The whole inline (unreduced) stream's length. */
    final int full;
    /** The inline stream's length without the placed items and their pad. */
    final int remainder;
    /** The Write list the reply returns. */
    final List<WriteChunk> returned;

    ReplyPlacement(List<WriteChunk> writeList, List<DdpItem> items, int full, boolean rdma) {
        this.items = items;
        this.full = full;
        candidates = rdma ? Math.min(items.size(), writeList.size()) : 0;
        inChunk = new boolean[candidates];
        int n = 0;
        long placedBytes = 0;
        for (int i = 0; i < candidates; i++) {
            WriteChunk chunk = writeList.get(i);
            DdpItem item = items.get(i);
            if (!chunk.segments().isEmpty() && item.length() <= chunk.totalLength()) {
                inChunk[i] = true;
                n++;
                placedBytes += item.length() + item.padLength();
            }
        }
        placed = n;
        remainder = (int) (full - placedBytes);
        List<WriteChunk> r = new ArrayList<>(writeList.size());
        for (int i = 0; i < writeList.size(); i++) {
            r.add(fill(writeList.get(i), i < candidates && inChunk[i] ? items.get(i).length() : 0));
        }
        returned = r;
    }

    /** The inline stream without the placed items' data and pad: {@code placed + 1} ranges as (start, end) pairs. */
    int[] inlineRanges() {
        int[] ranges = new int[2 * (placed + 1)];
        int cursor = 0;
        int r = 0;
        for (int i = 0; i < candidates; i++) {
            if (inChunk[i]) {
                DdpItem item = items.get(i);
                ranges[r++] = cursor;
                ranges[r++] = item.position();
                cursor = item.position() + item.length() + item.padLength();
            }
        }
        ranges[r++] = cursor;
        ranges[r] = full;
        return ranges;
    }

    /** The chunk with its segment lengths set to how much of {@code length} each holds. */
    static WriteChunk fill(WriteChunk chunk, long length) {
        List<RdmaSegment> segments = new ArrayList<>(chunk.segments().size());
        long remaining = length;
        for (RdmaSegment s : chunk.segments()) {
            long n = Math.min(remaining, s.unsignedLength());
            segments.add(new RdmaSegment(s.handle(), (int) n, s.offset()));
            remaining -= n;
        }
        return new WriteChunk(segments);
    }

    /**
     * The one handle every segment of the call names (as Linux decides), or 0 when there is none or several. Walks
     * the lists in place: it runs for every reply (RFC 8797 §4.1), so it builds nothing.
     */
    static int singleHandle(RpcRdmaHeader call) {
        long handle = NO_HANDLE;
        List<ReadSegment> reads = call.readList();
        for (int i = 0; i < reads.size() && handle != MIXED_HANDLES; i++) {
            handle = sameHandle(handle, reads.get(i).segment());
        }
        List<WriteChunk> writes = call.writeList();
        for (int i = 0; i < writes.size(); i++) {
            handle = sameHandles(handle, writes.get(i).segments());
        }
        if (call.replyChunk() != null) {
            handle = sameHandles(handle, call.replyChunk().segments());
        }
        return handle < 0 ? 0 : (int) handle;
    }

    /** {@link #singleHandle}'s state: no segment seen yet, or segments with different handles. */
    private static final long NO_HANDLE = -1;
    private static final long MIXED_HANDLES = -2;

    private static long sameHandles(long handle, List<RdmaSegment> segments) {
        for (int j = 0; j < segments.size() && handle != MIXED_HANDLES; j++) {
            handle = sameHandle(handle, segments.get(j));
        }
        return handle;
    }

    private static long sameHandle(long handle, RdmaSegment segment) {
        long h = segment.handle() & 0xFFFF_FFFFL;
        return handle == NO_HANDLE || handle == h ? h : MIXED_HANDLES;
    }
}
