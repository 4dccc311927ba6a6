package dev.rpcrdma.oncrpc.message;

import dev.rpcrdma.oncrpc.xdr.XdrException;
import dev.rpcrdma.oncrpc.xdr.XdrReader;
import dev.rpcrdma.oncrpc.xdr.XdrWriter;
import io.netty.util.internal.ObjectUtil;

import java.util.Arrays;

/**
 * RFC 5531 §8.2 {@code opaque_auth}: a flavor and an opaque body of at most {@value #MAX_BODY} bytes. Used for
 * credentials and verifiers; flavors this library does not interpret are carried as they are. Immutable (the
 * body is a private copy, bounded by {@value #MAX_BODY}).
 */
public final class OpaqueAuth {

    /** RFC 5531 §8.2: {@code opaque body<400>}. */
    public static final int MAX_BODY = 400;

    /** AUTH_NONE with an empty body (RFC 5531 §10.1). */
    public static final OpaqueAuth NONE = new OpaqueAuth(AuthFlavor.AUTH_NONE, new byte[0]);

    private final AuthFlavor flavor;
    private final byte[] body;

    private OpaqueAuth(AuthFlavor flavor, byte[] body) {
        this.flavor = flavor;
        this.body = body;
    }

    /** An opaque_auth of the given flavor; the body (at most 400 bytes) is copied. */
    public static OpaqueAuth of(AuthFlavor flavor, byte[] body) {
        ObjectUtil.checkNotNull(flavor, "flavor");
        ObjectUtil.checkNotNull(body, "body");
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("opaque_auth body of " + body.length + " bytes exceeds " + MAX_BODY);
        }
        return new OpaqueAuth(flavor, body.clone());
    }

    /** The flavor. */
    public AuthFlavor flavor() {
        return flavor;
    }

    /** A copy of the body. */
    public byte[] body() {
        return body.clone();
    }

    /** The body length. */
    public int bodyLength() {
        return body.length;
    }

    byte[] bodyUnsafe() {
        return body;
    }

    /** Decodes an opaque_auth, rejecting a body over 400 bytes before reading it. */
    public static OpaqueAuth decode(XdrReader in) throws XdrException {
        AuthFlavor flavor = AuthFlavor.valueOf(in.readEnum());
        byte[] body = in.readOpaque(MAX_BODY);
        return body.length == 0 && flavor.equals(AuthFlavor.AUTH_NONE) ? NONE : new OpaqueAuth(flavor, body);
    }

    /** Encodes this opaque_auth. */
    public void encode(XdrWriter out) {
        out.writeEnum(flavor.intValue());
        out.writeOpaque(body);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpaqueAuth && ((OpaqueAuth) o).flavor.equals(flavor)
                && Arrays.equals(((OpaqueAuth) o).body, body);
    }

    @Override
    public int hashCode() {
        return flavor.hashCode() * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return flavor + "(" + body.length + " bytes)";
    }
}
