package dev.rpcrdma.oncrpc.rpcbind;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** RFC 5665 §5.2.3 universal addresses. */
class UniversalAddressTest {

    @Test
    void formatsAndParsesIpv4() throws Exception {
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 2049);
        assertEquals("127.0.0.1.8.1", UniversalAddress.format(a));
        assertEquals(a, UniversalAddress.parse("127.0.0.1.8.1"));
        assertEquals(111, UniversalAddress.parse("0.0.0.0.0.111").getPort());
    }

    @Test
    void formatsAndParsesIpv6() throws Exception {
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("::1"), 20049);
        String uaddr = UniversalAddress.format(a);
        assertEquals(20049, UniversalAddress.parse(uaddr).getPort());
        assertEquals(a.getAddress(), UniversalAddress.parse(uaddr).getAddress());
        assertEquals(111, UniversalAddress.parse("::.0.111").getPort());
    }

    @Test
    void rejectsMalformedAddresses() {
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("/run/rpcbind.sock"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("127.0.0.1.256.1"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("host.example.0.111"));
        assertThrows(IllegalArgumentException.class, () -> UniversalAddress.parse("111"));
    }
}
