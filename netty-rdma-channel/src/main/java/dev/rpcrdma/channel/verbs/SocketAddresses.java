package dev.rpcrdma.channel.verbs;

import static dev.rpcrdma.channel.verbs.NativeMemory.IO;

import dev.rpcrdma.channel.verbs.RdmaCmLayouts.SockaddrIn;
import dev.rpcrdma.channel.verbs.RdmaCmLayouts.SockaddrIn6;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** Encodes {@link InetSocketAddress} as {@code sockaddr_in}/{@code sockaddr_in6} bytes and decodes them back. */
final class SocketAddresses {
    private SocketAddresses() {
    }

    static byte[] encode(InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        InetAddress ip = address.getAddress();
        int port = address.getPort();
        if (ip instanceof Inet4Address) {
            byte[] sa = new byte[SockaddrIn.SIZE];
            putFamily(sa, SockaddrIn.SIN_FAMILY, RdmaCmConstants.AF_INET);
            sa[SockaddrIn.SIN_PORT] = (byte) (port >>> 8); // network order
            sa[SockaddrIn.SIN_PORT + 1] = (byte) port;
            System.arraycopy(ip.getAddress(), 0, sa, SockaddrIn.SIN_ADDR, 4);
            return sa;
        }
        Inet6Address ip6 = (Inet6Address) ip;
        byte[] sa = new byte[SockaddrIn6.SIZE];
        putFamily(sa, SockaddrIn6.SIN6_FAMILY, RdmaCmConstants.AF_INET6);
        sa[SockaddrIn6.SIN6_PORT] = (byte) (port >>> 8);
        sa[SockaddrIn6.SIN6_PORT + 1] = (byte) port;
        System.arraycopy(ip6.getAddress(), 0, sa, SockaddrIn6.SIN6_ADDR, 16);
        int scope = ip6.getScopeId();
        for (int i = 0; i < 4; i++) { // host order (little endian)
            sa[SockaddrIn6.SIN6_SCOPE_ID + i] = (byte) (scope >>> (8 * i));
        }
        return sa;
    }

    private static void putFamily(byte[] sa, int offset, int family) {
        sa[offset] = (byte) family; // sa_family_t, host order (little endian)
        sa[offset + 1] = (byte) (family >>> 8);
    }

    /** Decodes the sockaddr at {@code address}; null if its family is neither AF_INET nor AF_INET6. */
    static InetSocketAddress decode(long address) {
        int family = IO.getShort(address) & 0xFFFF;
        try {
            if (family == RdmaCmConstants.AF_INET) {
                byte[] ip = new byte[4];
                IO.getByteArray(address + SockaddrIn.SIN_ADDR, ip, 0, 4);
                return new InetSocketAddress(InetAddress.getByAddress(ip), port(address + SockaddrIn.SIN_PORT));
            }
            if (family == RdmaCmConstants.AF_INET6) {
                byte[] ip = new byte[16];
                IO.getByteArray(address + SockaddrIn6.SIN6_ADDR, ip, 0, 16);
                int scope = IO.getInt(address + SockaddrIn6.SIN6_SCOPE_ID);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope),
                        port(address + SockaddrIn6.SIN6_PORT));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen: fixed-size raw addresses
        }
        return null;
    }

    private static int port(long address) {
        return ((IO.getByte(address) & 0xFF) << 8) | (IO.getByte(address + 1) & 0xFF);
    }
}
