package dev.rpcrdma.samples.nfs4;

/**
 * One directory entry as READDIR sees it: name, object and its cookie (stable for the directory's life in the
 * in-memory backend, RFC 5661 §18.23.4). Immutable.
 */
record DirEntry(String name, long fileid, long cookie) {
}
