package dev.rpcrdma.handlers.responder;

import dev.rpcrdma.handlers.header.RdmaSegment;
import dev.rpcrdma.handlers.header.ReadSegment;

import java.util.ArrayList;
import java.util.List;

/**
 * One Read chunk (RFC 8166 §3.4.5): the consecutive Read list entries that share an XDR position, their data
 * concatenated in list order.
 *
 * @param position XDR position in the unreduced Payload stream
 * @param segments the segments, in list order
 * @param length   total length in bytes
 */
record ReadChunk(int position, List<RdmaSegment> segments, long length) {

    /** Groups a Read list (already checked by the header decoder: aligned, ascending) into chunks. */
    static List<ReadChunk> group(List<ReadSegment> readList) {
        List<ReadChunk> chunks = new ArrayList<>(readList.size());
        int i = 0;
        while (i < readList.size()) {
            int position = readList.get(i).position();
            List<RdmaSegment> segments = new ArrayList<>(2);
            long length = 0;
            while (i < readList.size() && readList.get(i).position() == position) {
                RdmaSegment s = readList.get(i).segment();
                segments.add(s);
                length += s.unsignedLength();
                i++;
            }
            chunks.add(new ReadChunk(position, List.copyOf(segments), length));
        }
        return chunks;
    }
}
