package dev.rpcrdma.samples.nfs4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;

/**
 * The file tree an {@link Nfs4Server} exports, addressed by file id (the file handle carries it): lookups,
 * attributes, directory listing with cookies, data. Failures are {@link Nfs4Exception}s with the NFSv4 status
 * (NOENT, EXIST, NOTDIR, NOTEMPTY, STALE...). Implementations: {@link MemoryFileSystem} (default) and
 * {@link HostFileSystem}. Called with the server's state lock held, so an implementation needs no locking of its
 * own; it must not block for long (it runs on an event loop).
 */
interface Nfs4FileSystem {

    /** Cookies below this are reserved (RFC 5661 §18.23.4: 0 starts, 1 and 2 are reserved). */
    long FIRST_COOKIE = 3;

    /** The root directory's file id. */
    long rootId();

    /** The attributes of {@code id}; STALE if it no longer exists. */
    FileAttrs attrs(long id) throws Nfs4Exception;

    /** The object {@code name} in directory {@code dir}. */
    long lookup(long dir, String name) throws Nfs4Exception;

    /** The parent of directory {@code dir} (the root is its own parent: LOOKUPP at the root is NOENT upstream). */
    long parent(long dir) throws Nfs4Exception;

    /** Creates a regular file or directory ({@code type} NF4REG/NF4DIR); EXIST if the name is taken. */
    long create(long dir, String name, int type, int mode, int uid, int gid) throws Nfs4Exception;

    /**
     * Told when {@code id} becomes open (some client holds an OPEN stateid on it) and when its last open is closed.
     * A regular file whose last name a REMOVE or a RENAME over it takes while it is open stays readable and
     * writable through its id until then (RFC 5661 §18.25.4: "until last CLOSE of the file, the server MAY
     * continue to allow access to the file via its filehandle"). The default keeps nothing: I/O on such a file is
     * STALE, while PUTFH and CLOSE still work through the open state.
     */
    default void keepWhileOpen(long id, boolean open) {
    }

    /** Removes {@code name} from {@code dir} (NOTEMPTY for a non-empty directory). */
    void remove(long dir, String name) throws Nfs4Exception;

    /** Renames, replacing a compatible target (RFC 5661 §18.26.4). */
    void rename(long fromDir, String from, long toDir, String to) throws Nfs4Exception;

    /** Up to {@code max} entries of {@code dir} after {@code cookie} (0: from the start), in cookie order. */
    List<DirEntry> list(long dir, long cookie, int max) throws Nfs4Exception;

    /** Whether {@code cookie} is still meaningful in {@code dir} (BAD_COOKIE otherwise). */
    boolean validCookie(long dir, long cookie) throws Nfs4Exception;

    /** At most {@code count} bytes at {@code offset} (fewer at the end), in a buffer the caller releases. */
    ByteBuf read(long id, long offset, int count, ByteBufAllocator alloc) throws Nfs4Exception;

    /**
     * Writes the readable bytes of {@code data} at {@code offset} (does not release it) with at least the
     * stability asked ({@code stable_how4}); returns the stability reached (RFC 5661 §18.32.3).
     */
    int write(long id, long offset, ByteBuf data, int stable) throws Nfs4Exception;

    /** Applies {@code set} (size, mode, owner, times); owners are numeric uids/gids as strings. */
    void setAttrs(long id, SetAttrs set) throws Nfs4Exception;

    /** Makes written data stable (a no-op in memory). */
    void commit(long id) throws Nfs4Exception;

    /** Total and free bytes, for space_total/space_free/space_avail. */
    long[] space();
}
