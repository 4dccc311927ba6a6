package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import dev.rpcrdma.oncrpc.xdr.XdrReader;

/**
 * One NFSv4.1 operation inside a COMPOUND: decodes its arguments from {@code in}, does its work on the compound's
 * {@link CompoundContext}, and on success appends its result body (what follows the status) to {@code out}. It
 * writes nothing before it can no longer fail: a failure is an {@link Nfs4Exception} (the operation's status) or
 * an {@link XdrException} (NFS4ERR_BADXDR), thrown before any result byte. Runs with the state lock held.
 */
@FunctionalInterface
interface Operation {
    void run(CompoundContext ctx, XdrReader in, XdrPayload out) throws XdrException, Nfs4Exception;
}
