package dev.rpcrdma.samples.nfs4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The in-memory backend's rules: stable READDIR cookies, rename checks, truncation, errors as NFS statuses. */
class MemoryFileSystemTest {
    final MemoryFileSystem fs = new MemoryFileSystem();
    final long root = fs.rootId();


    @Test
    void cookiesStayValidWhileEntriesComeAndGo() throws Exception {
        for (int i = 0; i < 10; i++) {
            fs.create(root, "f" + i, Nfs4.NF4REG, 0644, 0, 0);
        }
        List<DirEntry> first = fs.list(root, 0, 4);
        assertEquals(4, first.size());
        long cookie = first.get(3).cookie();
        fs.remove(root, "f3"); // the entry the cookie points at goes away: listing resumes after it anyway
        fs.remove(root, "f5");
        List<DirEntry> rest = fs.list(root, cookie, 100);
        assertEquals(List.of("f4", "f6", "f7", "f8", "f9"), rest.stream().map(DirEntry::name).toList());
        assertTrue(fs.validCookie(root, cookie));
        assertTrue(!fs.validCookie(root, 1_000_000));
    }

    @Test
    void renameRulesAndErrors() throws Exception {
        long a = fs.create(root, "a", Nfs4.NF4DIR, 0755, 0, 0);
        long b = fs.create(a, "b", Nfs4.NF4DIR, 0755, 0, 0);
        assertEquals(Nfs4.NFS4ERR_INVAL, assertThrows(Nfs4Exception.class, () -> fs.rename(root, "a", b, "x"))
                .status(), "a directory cannot move into itself");
        fs.create(root, "file", Nfs4.NF4REG, 0644, 0, 0);
        assertEquals(Nfs4.NFS4ERR_EXIST, assertThrows(Nfs4Exception.class, () -> fs.rename(root, "file", root, "a"))
                .status(), "a file does not replace a directory");
        assertEquals(Nfs4.NFS4ERR_NOTEMPTY, assertThrows(Nfs4Exception.class, () -> fs.remove(root, "a")).status());
        fs.rename(a, "b", root, "b2");
        assertEquals(root, fs.parent(b));
        assertEquals(2, fs.attrs(a).nlink);
        assertEquals(Nfs4.NFS4ERR_NOENT, assertThrows(Nfs4Exception.class, () -> fs.lookup(a, "b")).status());
        fs.remove(root, "b2");
        assertEquals(Nfs4.NFS4ERR_STALE, assertThrows(Nfs4Exception.class, () -> fs.attrs(b)).status());
        assertEquals(Nfs4.NFS4ERR_NOTDIR, assertThrows(Nfs4Exception.class,
                () -> fs.lookup(fs.lookup(root, "file"), "x")).status());
    }

    @Test
    void truncationZeroesWhatAGrowAgainExposes() throws Exception {
        long f = fs.create(root, "f", Nfs4.NF4REG, 0644, 0, 0);
        fs.write(f, 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}), Nfs4.UNSTABLE4);
        SetAttrs shrink = new SetAttrs();
        shrink.size = 2;
        fs.setAttrs(f, shrink);
        SetAttrs grow = new SetAttrs();
        grow.size = 6;
        fs.setAttrs(f, grow);
        ByteBuf data = fs.read(f, 0, 100, UnpooledByteBufAllocator.DEFAULT);
        try {
            byte[] bytes = new byte[data.readableBytes()];
            data.readBytes(bytes);
            assertEquals("[1, 2, 0, 0, 0, 0]", java.util.Arrays.toString(bytes));
        } finally {
            data.release();
        }
        assertEquals(6, fs.attrs(f).size);
    }
}
