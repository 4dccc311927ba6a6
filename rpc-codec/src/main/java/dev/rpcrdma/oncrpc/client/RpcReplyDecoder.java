package dev.rpcrdma.oncrpc.client;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;

/**
 * Decodes the results of a successful reply. Runs on the channel's event loop; the reader is valid only during
 * the call, so copy or retain what must outlive it.
 *
 * @param <T> the decoded result type
 */
@FunctionalInterface
public interface RpcReplyDecoder<T> {

    /** Decodes the results. An {@link XdrException} fails the call's future. */
    T decode(XdrReader results) throws XdrException;

    /** For void results (NULL and the like): decodes nothing. */
    RpcReplyDecoder<Void> VOID = results -> null;
}
