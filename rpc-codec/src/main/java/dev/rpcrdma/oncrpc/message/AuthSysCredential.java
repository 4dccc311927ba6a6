package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.ObjectUtil;

import java.util.Arrays;

/**
 * RFC 5531 Appendix A {@code authsys_parms}: the body of an AUTH_SYS credential.
 * <pre>
 * struct authsys_parms { unsigned int stamp; string machinename&lt;255&gt;; unsigned int uid;
 *                        unsigned int gid; unsigned int gids&lt;16&gt;; };
 * </pre>
 * Immutable.
 */
public final class AuthSysCredential {

    /** RFC 5531 Appendix A: {@code machinename<255>}. */
    public static final int MAX_MACHINE_NAME = 255;
    /** RFC 5531 Appendix A: {@code gids<16>}. */
    public static final int MAX_GIDS = 16;

    private final int stamp;
    private final String machineName;
    private final int uid;
    private final int gid;
    private final int[] gids;

    /** A credential; {@code machineName} at most 255 bytes, at most 16 {@code gids}. */
    public AuthSysCredential(int stamp, String machineName, int uid, int gid, int... gids) {
        this.stamp = stamp;
        this.machineName = ObjectUtil.checkNotNull(machineName, "machineName");
        if (ByteBufUtil.utf8Bytes(machineName) > MAX_MACHINE_NAME) {
            throw new IllegalArgumentException("machinename longer than " + MAX_MACHINE_NAME + " bytes");
        }
        if (gids.length > MAX_GIDS) {
            throw new IllegalArgumentException(gids.length + " gids, at most " + MAX_GIDS + " allowed");
        }
        this.uid = uid;
        this.gid = gid;
        this.gids = gids.clone();
    }

    /** The arbitrary stamp the caller chose. */
    public int stamp() {
        return stamp;
    }

    /** The caller's machine name. */
    public String machineName() {
        return machineName;
    }

    /** Effective user id (unsigned 32 bits). */
    public int uid() {
        return uid;
    }

    /** Effective group id (unsigned 32 bits). */
    public int gid() {
        return gid;
    }

    /** Supplementary group ids (a copy). */
    public int[] gids() {
        return gids.clone();
    }

    /** Decodes an AUTH_SYS credential from its opaque_auth; the whole body must be consumed. */
    public static AuthSysCredential decode(OpaqueAuth cred) throws XdrException {
        if (!cred.flavor().equals(AuthFlavor.AUTH_SYS)) {
            throw new XdrException("not an AUTH_SYS credential: " + cred.flavor());
        }
        ByteBuf body = Unpooled.wrappedBuffer(cred.bodyUnsafe());
        XdrReader in = new XdrReader(body);
        int stamp = in.readInt();
        String machineName = in.readString(MAX_MACHINE_NAME);
        int uid = in.readInt();
        int gid = in.readInt();
        int n = in.readArrayLength(MAX_GIDS, 4);
        int[] gids = new int[n];
        for (int i = 0; i < n; i++) {
            gids[i] = in.readInt();
        }
        if (in.readableBytes() != 0) {
            throw new XdrException("AUTH_SYS credential has " + in.readableBytes() + " trailing bytes");
        }
        return new AuthSysCredential(stamp, machineName, uid, gid, gids);
    }

    /** Encodes this credential as an AUTH_SYS opaque_auth. */
    public OpaqueAuth toOpaqueAuth() {
        ByteBuf body = Unpooled.buffer(OpaqueAuth.MAX_BODY);
        XdrWriter out = new XdrWriter(body);
        out.writeInt(stamp).writeString(machineName).writeInt(uid).writeInt(gid).writeInt(gids.length);
        for (int g : gids) {
            out.writeInt(g);
        }
        return OpaqueAuth.of(AuthFlavor.AUTH_SYS, ByteBufUtil.getBytes(body));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AuthSysCredential)) {
            return false;
        }
        AuthSysCredential c = (AuthSysCredential) o;
        return c.stamp == stamp && c.machineName.equals(machineName) && c.uid == uid && c.gid == gid
                && Arrays.equals(c.gids, gids);
    }

    @Override
    public int hashCode() {
        return ((stamp * 31 + machineName.hashCode()) * 31 + uid) * 31 + gid;
    }

    @Override
    public String toString() {
        return "AUTH_SYS(uid=" + uid + ", gid=" + gid + ", gids=" + Arrays.toString(gids) + ", machine="
                + machineName + ')';
    }
}
