package dev.rpcrdma.oncrpc.rpcbind;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * RFC 5665 §5.2.3 universal addresses for IP: the address in its usual text form, then {@code .p1.p2}, the port's
 * high and low octets in decimal (e.g. {@code 127.0.0.1.0.111}).
 */
public final class UniversalAddress {

    private UniversalAddress() {
    }

    /** Formats an IP socket address. */
    public static String format(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        int percent = host.indexOf('%');
        if (percent >= 0) {
            host = host.substring(0, percent);
        }
        return host + '.' + (address.getPort() >> 8) + '.' + (address.getPort() & 0xFF);
    }

    /** Parses an IP universal address; {@link IllegalArgumentException} if malformed. */
    public static InetSocketAddress parse(String uaddr) {
        int last = uaddr.lastIndexOf('.');
        int previous = last > 0 ? uaddr.lastIndexOf('.', last - 1) : -1;
        if (previous <= 0) {
            throw new IllegalArgumentException("not a universal address: " + uaddr);
        }
        try {
            int high = Integer.parseInt(uaddr.substring(previous + 1, last));
            int low = Integer.parseInt(uaddr.substring(last + 1));
            if (high < 0 || high > 255 || low < 0 || low > 255) {
                throw new IllegalArgumentException("bad port octets in " + uaddr);
            }
            String host = uaddr.substring(0, previous);
            if (!host.contains(":") && !host.matches("[0-9.]+")) {
                throw new IllegalArgumentException("not an IP universal address: " + uaddr);
            }
            return new InetSocketAddress(InetAddress.getByName(host), high << 8 | low);
        } catch (NumberFormatException | UnknownHostException e) {
            throw new IllegalArgumentException("not a universal address: " + uaddr, e);
        }
    }
}
