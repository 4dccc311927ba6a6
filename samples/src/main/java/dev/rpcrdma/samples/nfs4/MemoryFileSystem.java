package dev.rpcrdma.samples.nfs4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The default backend: a file tree in the JVM's heap, lost at exit. Directory cookies are per-entry sequence
 * numbers that never repeat, so READDIR resumes correctly across several calls while entries come and go (RFC
 * 5661 §18.23.4). Not thread-safe: the server calls it with its state lock held.
 */
final class MemoryFileSystem implements Nfs4FileSystem {

    /** Largest file this backend holds (one Java array). */
    static final long MAX_FILE = Integer.MAX_VALUE - 64;

    private static final class Node {
        final FileAttrs attrs = new FileAttrs();
        long parent;
        byte[] data = new byte[0];
        // Directories only.
        TreeMap<Long, DirEntry> byCookie;
        Map<String, DirEntry> byName;
        long nextCookie = FIRST_COOKIE;
    }

    private final LongObjectMap<Node> nodes = new LongObjectHashMap<>();
    /** Open regular files: one that loses its last name stays in {@link #nodes} (nlink 0) until closed. */
    private final java.util.Set<Long> open = new java.util.HashSet<>();
    private long nextId = 2;

    MemoryFileSystem() {
        Node root = newNode(Nfs4.NF4DIR, 0755, 0, 0);
        root.parent = root.attrs.fileid;
    }

    private Node newNode(int type, int mode, int uid, int gid) {
        Node n = new Node();
        long now = now();
        n.attrs.type = type;
        n.attrs.fileid = nextId++;
        n.attrs.mode = mode & 07777;
        n.attrs.nlink = type == Nfs4.NF4DIR ? 2 : 1;
        n.attrs.uid = uid;
        n.attrs.gid = gid;
        n.attrs.atime = now;
        n.attrs.mtime = now;
        n.attrs.ctime = now;
        n.attrs.change = 1;
        if (type == Nfs4.NF4DIR) {
            n.byCookie = new TreeMap<>();
            n.byName = new HashMap<>();
            n.attrs.size = 4096;
        }
        nodes.put(n.attrs.fileid, n);
        return n;
    }

    static long now() {
        long ms = System.currentTimeMillis();
        return ms * 1_000_000L + (System.nanoTime() % 1_000_000L + 1_000_000L) % 1_000_000L;
    }

    private Node node(long id) throws Nfs4Exception {
        Node n = nodes.get(id);
        if (n == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_STALE);
        }
        return n;
    }

    private Node dir(long id) throws Nfs4Exception {
        Node n = node(id);
        if (n.byName == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOTDIR);
        }
        return n;
    }

    private static void touch(Node n) {
        n.attrs.change++;
        n.attrs.mtime = now();
        n.attrs.ctime = n.attrs.mtime;
    }

    @Override
    public long rootId() {
        return 2;
    }

    @Override
    public FileAttrs attrs(long id) throws Nfs4Exception {
        Node n = node(id);
        FileAttrs a = new FileAttrs();
        FileAttrs s = n.attrs;
        a.type = s.type;
        a.fileid = s.fileid;
        a.mode = s.mode;
        a.nlink = s.nlink;
        a.uid = s.uid;
        a.gid = s.gid;
        a.size = n.byName != null ? s.size : n.attrs.size;
        a.spaceUsed = n.byName != null ? 4096 : (a.size + 4095) & ~4095L;
        a.change = s.change;
        a.atime = s.atime;
        a.mtime = s.mtime;
        a.ctime = s.ctime;
        return a;
    }

    @Override
    public long lookup(long dir, String name) throws Nfs4Exception {
        DirEntry e = dir(dir).byName.get(name);
        if (e == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
        }
        return e.fileid();
    }

    @Override
    public long parent(long dir) throws Nfs4Exception {
        return dir(dir).parent;
    }

    @Override
    public long create(long dir, String name, int type, int mode, int uid, int gid) throws Nfs4Exception {
        Node d = dir(dir);
        if (d.byName.containsKey(name)) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_EXIST);
        }
        Node n = newNode(type, mode, uid, gid);
        n.parent = dir;
        link(d, name, n.attrs.fileid);
        if (type == Nfs4.NF4DIR) {
            d.attrs.nlink++;
        }
        return n.attrs.fileid;
    }

    private static void link(Node d, String name, long id) {
        DirEntry e = new DirEntry(name, id, d.nextCookie++);
        d.byName.put(name, e);
        d.byCookie.put(e.cookie(), e);
        touch(d);
    }

    private static DirEntry unlink(Node d, String name) {
        DirEntry e = d.byName.remove(name);
        d.byCookie.remove(e.cookie());
        touch(d);
        return e;
    }

    @Override
    public void remove(long dir, String name) throws Nfs4Exception {
        Node d = dir(dir);
        DirEntry e = d.byName.get(name);
        if (e == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
        }
        Node n = node(e.fileid());
        if (n.byName != null && !n.byName.isEmpty()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOTEMPTY);
        }
        unlink(d, name);
        if (n.byName != null) {
            d.attrs.nlink--;
        }
        n.attrs.nlink = 0;
        n.attrs.ctime = now();
        if (!open.contains(n.attrs.fileid)) {
            nodes.remove(n.attrs.fileid);
        }
    }

    @Override
    public void keepWhileOpen(long id, boolean isOpen) {
        if (isOpen) {
            open.add(id);
        } else if (open.remove(id)) {
            Node n = nodes.get(id);
            if (n != null && n.attrs.nlink == 0) {
                nodes.remove(id);
            }
        }
    }

    @Override
    public void rename(long fromDir, String from, long toDir, String to) throws Nfs4Exception {
        Node src = dir(fromDir);
        Node dst = dir(toDir);
        DirEntry e = src.byName.get(from);
        if (e == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
        }
        Node n = node(e.fileid());
        if (fromDir == toDir && from.equals(to)) {
            return;
        }
        for (long p = toDir; n.byName != null; p = node(p).parent) {
            if (p == n.attrs.fileid) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL, "rename into itself");
            }
            if (p == rootId()) {
                break;
            }
        }
        DirEntry old = dst.byName.get(to);
        if (old != null) {
            Node target = node(old.fileid());
            if ((target.byName != null) != (n.byName != null)) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_EXIST);
            }
            remove(toDir, to);
        }
        unlink(src, from);
        link(dst, to, n.attrs.fileid);
        if (n.byName != null && fromDir != toDir) {
            src.attrs.nlink--;
            dst.attrs.nlink++;
            n.parent = toDir;
        }
        n.attrs.ctime = now();
        n.attrs.change++;
    }

    @Override
    public List<DirEntry> list(long dir, long cookie, int max) throws Nfs4Exception {
        Node d = dir(dir);
        List<DirEntry> out = new ArrayList<>(Math.min(max, d.byCookie.size()));
        for (DirEntry e : d.byCookie.tailMap(cookie, false).values()) {
            if (out.size() == max) {
                break;
            }
            out.add(e);
        }
        return out;
    }

    @Override
    public boolean validCookie(long dir, long cookie) throws Nfs4Exception {
        Node d = dir(dir);
        return cookie == 0 || (cookie >= FIRST_COOKIE && cookie < d.nextCookie);
    }

    @Override
    public ByteBuf read(long id, long offset, int count, ByteBufAllocator alloc) throws Nfs4Exception {
        Node n = node(id);
        if (n.byName != null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_ISDIR);
        }
        long size = n.attrs.size;
        int length = offset >= size ? 0 : (int) Math.min(count, size - offset);
        ByteBuf out = alloc.buffer(length);
        out.writeBytes(n.data, (int) offset, length);
        n.attrs.atime = now();
        return out;
    }

    @Override
    public int write(long id, long offset, ByteBuf data, int stable) throws Nfs4Exception {
        Node n = node(id);
        if (n.byName != null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_ISDIR);
        }
        long end = offset + data.readableBytes();
        if (offset < 0 || end > MAX_FILE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_FBIG);
        }
        ensureCapacity(n, end);
        data.getBytes(data.readerIndex(), n.data, (int) offset, data.readableBytes());
        n.attrs.size = Math.max(n.attrs.size, end);
        touch(n);
        return Nfs4.FILE_SYNC4;
    }

    private static void ensureCapacity(Node n, long end) {
        if (end > n.data.length) {
            long grown = Math.max(end, Math.min(MAX_FILE, (long) n.data.length * 2));
            byte[] bigger = new byte[(int) grown];
            System.arraycopy(n.data, 0, bigger, 0, (int) Math.min(n.attrs.size, n.data.length));
            n.data = bigger;
        }
    }

    @Override
    public void setAttrs(long id, SetAttrs set) throws Nfs4Exception {
        Node n = node(id);
        if (set.size >= 0) {
            if (n.byName != null) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_ISDIR);
            }
            if (set.size > MAX_FILE) {
                throw new Nfs4Exception(Nfs4.NFS4ERR_FBIG);
            }
            if (set.size < n.attrs.size) {
                java.util.Arrays.fill(n.data, (int) set.size, (int) Math.min(n.attrs.size, n.data.length),
                        (byte) 0);
            } else {
                ensureCapacity(n, set.size);
            }
            n.attrs.size = set.size;
            n.attrs.mtime = now();
        }
        if (set.mode >= 0) {
            n.attrs.mode = set.mode & 07777;
        }
        if (set.owner != null) {
            n.attrs.uid = Attributes.parseId(set.owner);
        }
        if (set.ownerGroup != null) {
            n.attrs.gid = Attributes.parseId(set.ownerGroup);
        }
        if (set.atime != SetAttrs.UNSET) {
            n.attrs.atime = set.atime == SetAttrs.SERVER_TIME ? now() : set.atime;
        }
        if (set.mtime != SetAttrs.UNSET) {
            n.attrs.mtime = set.mtime == SetAttrs.SERVER_TIME ? now() : set.mtime;
        }
        n.attrs.ctime = now();
        n.attrs.change++;
    }

    @Override
    public void commit(long id) throws Nfs4Exception {
        node(id);
    }

    @Override
    public long[] space() {
        long total = 64L << 30;
        long used = 0;
        for (Node n : nodes.values()) {
            used += n.data.length;
        }
        return new long[] {total, Math.max(0, total - used)};
    }
}
