package dev.rpcrdma.samples.nfs4;

/**
 * A snapshot of one object's attributes as a {@link Nfs4FileSystem} reports them (the subset of RFC 5661 §5 this
 * server keeps). Times are nanoseconds since the epoch. A fresh copy per call: confined to the caller.
 */
final class FileAttrs {
    int type;
    long fileid;
    int mode;
    int nlink;
    int uid;
    int gid;
    long size;
    long spaceUsed;
    long change;
    long atime;
    long mtime;
    long ctime;

    boolean isDirectory() {
        return type == Nfs4.NF4DIR;
    }
}
