package dev.rpcrdma.handlers.header;

import static io.netty.util.internal.ObjectUtil.checkPositive;

/**
 * Bounds applied while decoding a transport header, before anything is allocated for a peer-supplied count
 * (RFC 8166 §8: a receiver must not trust counts and lengths from its peer).
 *
 * @param maxReadSegments     most entries in one Read list
 * @param maxWriteChunks      most chunks in one Write list
 * @param maxSegmentsPerChunk most segments in one Write or Reply chunk
 * @param maxChunkLength      most bytes one chunk (Read chunk, Write chunk, Reply chunk) may describe
 */
public record RpcRdmaLimits(int maxReadSegments, int maxWriteChunks, int maxSegmentsPerChunk, long maxChunkLength) {

    /** Defaults: 64 read segments, 8 write chunks, 64 segments a chunk, 16 MiB a chunk. */
    public static final RpcRdmaLimits DEFAULT = new RpcRdmaLimits(64, 8, 64, 16L << 20);

    public RpcRdmaLimits {
        checkPositive(maxReadSegments, "maxReadSegments");
        checkPositive(maxWriteChunks, "maxWriteChunks");
        checkPositive(maxSegmentsPerChunk, "maxSegmentsPerChunk");
        checkPositive(maxChunkLength, "maxChunkLength");
    }
}
