package dev.rpcrdma.samples.nfs4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A backend over a host directory (Linux: the {@code unix:} attribute view gives inode numbers, modes and owners).
 * File ids are inode numbers, mapped to paths as lookups, listings and creates discover them; READDIR cookies are
 * positions in the name-sorted listing, so entries added or removed between the calls of a listing may be missed
 * or repeated (allowed by RFC 5661 §18.23.4's weaker form, acceptable for a sample). I/O is blocking and runs on
 * the event loop; not thread-safe: called with the server's state lock held.
 */
final class HostFileSystem implements Nfs4FileSystem {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

    private final Path root;
    private final long rootId;
    private final LongObjectMap<Path> paths = new LongObjectHashMap<>();

    HostFileSystem(Path root) throws IOException {
        this.root = root.toAbsolutePath().normalize();
        if (!Files.isDirectory(this.root)) {
            throw new IOException(root + " is not a directory");
        }
        rootId = register(this.root);
    }

    private long register(Path p) throws IOException {
        long ino = ((Number) Files.getAttribute(p, "unix:ino", NOFOLLOW)).longValue();
        paths.put(ino, p);
        return ino;
    }

    private static Nfs4Exception map(IOException e) {
        if (e instanceof NoSuchFileException) {
            return new Nfs4Exception(Nfs4.NFS4ERR_NOENT, e.getMessage());
        }
        if (e instanceof FileAlreadyExistsException) {
            return new Nfs4Exception(Nfs4.NFS4ERR_EXIST, e.getMessage());
        }
        if (e instanceof DirectoryNotEmptyException) {
            return new Nfs4Exception(Nfs4.NFS4ERR_NOTEMPTY, e.getMessage());
        }
        if (e instanceof NotDirectoryException) {
            return new Nfs4Exception(Nfs4.NFS4ERR_NOTDIR, e.getMessage());
        }
        if (e instanceof AccessDeniedException) {
            return new Nfs4Exception(Nfs4.NFS4ERR_ACCESS, e.getMessage());
        }
        return new Nfs4Exception(Nfs4.NFS4ERR_IO, e.toString());
    }

    private Path path(long id) throws Nfs4Exception {
        Path p = paths.get(id);
        if (p == null || !Files.exists(p, NOFOLLOW)) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_STALE);
        }
        return p;
    }

    private static long nanos(Object time) {
        return ((FileTime) time).to(TimeUnit.NANOSECONDS);
    }

    @Override
    public long rootId() {
        return rootId;
    }

    @Override
    public FileAttrs attrs(long id) throws Nfs4Exception {
        Path p = path(id);
        try {
            Map<String, Object> u = Files.readAttributes(p, "unix:*", NOFOLLOW);
            FileAttrs a = new FileAttrs();
            int mode = (Integer) u.get("mode");
            int fmt = mode & 0170000;
            a.type = fmt == 0040000 ? Nfs4.NF4DIR : fmt == 0120000 ? Nfs4.NF4LNK : fmt == 0100000 ? Nfs4.NF4REG : 7;
            a.fileid = id;
            a.mode = mode & 07777;
            a.nlink = (Integer) u.get("nlink");
            a.uid = (Integer) u.get("uid");
            a.gid = (Integer) u.get("gid");
            a.size = (Long) u.get("size");
            a.spaceUsed = (a.size + 4095) & ~4095L;
            a.atime = nanos(u.get("lastAccessTime"));
            a.mtime = nanos(u.get("lastModifiedTime"));
            a.ctime = nanos(u.get("ctime"));
            a.change = Math.max(a.ctime, a.mtime);
            return a;
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public long lookup(long dir, String name) throws Nfs4Exception {
        Path p = path(dir).resolve(name);
        if (!Files.exists(p, NOFOLLOW)) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOENT);
        }
        try {
            return register(p);
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public long parent(long dir) throws Nfs4Exception {
        Path p = path(dir);
        if (p.equals(root)) {
            return rootId;
        }
        try {
            return register(p.getParent());
        } catch (IOException e) {
            throw map(e);
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] all = PosixFilePermission.values(); // OWNER_READ ... OTHERS_EXECUTE
        for (int i = 0; i < 9; i++) {
            if ((mode & (0400 >> i)) != 0) {
                s.add(all[i]);
            }
        }
        return s;
    }

    @Override
    public long create(long dir, String name, int type, int mode, int uid, int gid) throws Nfs4Exception {
        Path p = path(dir).resolve(name);
        try {
            if (type == Nfs4.NF4DIR) {
                Files.createDirectory(p);
            } else {
                Files.createFile(p);
            }
            Files.setPosixFilePermissions(p, permissions(mode));
            try {
                Files.setAttribute(p, "unix:uid", uid, NOFOLLOW);
                Files.setAttribute(p, "unix:gid", gid, NOFOLLOW);
            } catch (IOException | UnsupportedOperationException notRoot) {
                // Not running as root: the file keeps the server's owner.
            }
            return register(p);
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public void remove(long dir, String name) throws Nfs4Exception {
        try {
            Files.delete(path(dir).resolve(name));
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public void rename(long fromDir, String from, long toDir, String to) throws Nfs4Exception {
        Path src = path(fromDir).resolve(from);
        Path dst = path(toDir).resolve(to);
        try {
            Files.move(src, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw map(e);
        }
        for (var e : paths.entries()) {
            Path p = e.value();
            if (p.startsWith(src)) {
                e.setValue(dst.resolve(src.relativize(p)));
            }
        }
    }

    @Override
    public List<DirEntry> list(long dir, long cookie, int max) throws Nfs4Exception {
        Path d = path(dir);
        List<DirEntry> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(d)) {
            List<Path> sorted = s.sorted().toList();
            long start = cookie == 0 ? 0 : cookie - FIRST_COOKIE + 1;
            for (long i = start; i < sorted.size() && out.size() < max; i++) {
                Path p = sorted.get((int) i);
                try {
                    out.add(new DirEntry(p.getFileName().toString(), register(p), i + FIRST_COOKIE));
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
            }
            return out;
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public boolean validCookie(long dir, long cookie) {
        return cookie == 0 || cookie >= FIRST_COOKIE;
    }

    @Override
    public ByteBuf read(long id, long offset, int count, ByteBufAllocator alloc) throws Nfs4Exception {
        Path p = path(id);
        ByteBuf out = alloc.heapBuffer(count);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ByteBuffer nio = out.nioBuffer(0, count);
            long position = offset;
            while (nio.hasRemaining()) {
                int n = ch.read(nio, position);
                if (n < 0) {
                    break;
                }
                position += n;
            }
            out.writerIndex(nio.position());
            return out;
        } catch (IOException e) {
            out.release();
            throw map(e);
        }
    }

    @Override
    public int write(long id, long offset, ByteBuf data, int stable) throws Nfs4Exception {
        Path p = path(id);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ByteBuffer nio = data.nioBuffer();
            long position = offset;
            while (nio.hasRemaining()) {
                position += ch.write(nio, position);
            }
            if (stable != Nfs4.UNSTABLE4) {
                ch.force(stable == Nfs4.FILE_SYNC4);
            }
            return stable;
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public void setAttrs(long id, SetAttrs set) throws Nfs4Exception {
        Path p = path(id);
        try {
            if (set.size >= 0) {
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                    if (set.size < ch.size()) {
                        ch.truncate(set.size);
                    } else if (set.size > ch.size()) {
                        ch.write(ByteBuffer.allocate(1), set.size - 1);
                    }
                }
            }
            if (set.mode >= 0) {
                Files.setPosixFilePermissions(p, permissions(set.mode));
            }
            if (set.owner != null) {
                Files.setAttribute(p, "unix:uid", Attributes.parseId(set.owner), NOFOLLOW);
            }
            if (set.ownerGroup != null) {
                Files.setAttribute(p, "unix:gid", Attributes.parseId(set.ownerGroup), NOFOLLOW);
            }
            if (set.atime != SetAttrs.UNSET) {
                Files.setAttribute(p, "basic:lastAccessTime", time(set.atime), NOFOLLOW);
            }
            if (set.mtime != SetAttrs.UNSET) {
                Files.setLastModifiedTime(p, time(set.mtime));
            }
        } catch (IOException e) {
            throw map(e);
        }
    }

    private static FileTime time(long nanos) {
        return nanos == SetAttrs.SERVER_TIME ? FileTime.fromMillis(System.currentTimeMillis())
                : FileTime.from(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void commit(long id) throws Nfs4Exception {
        try (FileChannel ch = FileChannel.open(path(id), StandardOpenOption.WRITE)) {
            ch.force(true);
        } catch (IOException e) {
            throw map(e);
        }
    }

    @Override
    public long[] space() {
        try {
            var store = Files.getFileStore(root);
            return new long[] {store.getTotalSpace(), store.getUsableSpace()};
        } catch (IOException e) {
            return new long[] {0, 0};
        }
    }
}
