package dev.rpcrdma.samples.nfs4;

/**
 * An operation's NFSv4 failure (an {@code nfsstat4} of RFC 5661 §15): thrown by operations and the file system,
 * caught by {@link CompoundProcessor}, which turns it into the operation's status; it never leaves the compound.
 * Carries no stack trace (it is control flow, not a bug report). Immutable.
 */
final class Nfs4Exception extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    Nfs4Exception(int status) {
        this(status, null);
    }

    Nfs4Exception(int status, String message) {
        super(message == null ? "nfsstat4 " + status : message + " (nfsstat4 " + status + ")", null, false, false);
        this.status = status;
    }

    /** The {@code nfsstat4}. */
    int status() {
        return status;
    }
}
