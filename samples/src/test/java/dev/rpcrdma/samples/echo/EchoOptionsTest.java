package dev.rpcrdma.samples.echo;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EchoOptionsTest {

    @Test
    void defaults() {
        EchoOptions c = EchoOptions.parse(EchoOptions.Role.CLIENT);
        assertEquals(EchoOptions.Transport.RDMA, c.transport);
        assertEquals("auto", c.fabric);
        assertEquals(List.of("127.0.0.1"), c.addresses);
        assertEquals(EchoProgram.DEFAULT_PORT, c.port);
        assertEquals(1024, c.size, "the default fits the default inline threshold with its headers");
        assertEquals(EchoOptions.DEFAULT_COUNT, c.count);
        assertEquals(1000, c.warmup);
        assertEquals(1, c.concurrency);
        assertFalse(c.embeddedServer);
        EchoOptions s = EchoOptions.parse(EchoOptions.Role.SERVER);
        assertEquals(List.of("0.0.0.0"), s.addresses);
        assertEquals(EchoProgram.DEFAULT_PORT, s.port);
        assertEquals(0, EchoOptions.parse(EchoOptions.Role.CLIENT, "--embedded-server").port,
                "an embedded server takes any free port unless told");
    }

    @Test
    void valuesInBothSpellingsAndByteSuffixes() {
        EchoOptions o = EchoOptions.parse(EchoOptions.Role.CLIENT, "--size=64k", "--transport", "TCP",
                "--inline", "8KiB", "--count=7", "--port", "1234");
        assertEquals(65536, o.size);
        assertEquals(EchoOptions.Transport.TCP, o.transport);
        assertEquals(8192, o.inline);
        assertEquals(7, o.count);
        assertEquals(0, o.warmup);
        assertEquals(1234, o.port);
        assertEquals(1 << 20, EchoOptions.parse(EchoOptions.Role.CLIENT, "--size", "1m").size);
        assertEquals(List.of("10.0.0.1", "192.0.2.1"),
                EchoOptions.parse(EchoOptions.Role.SERVER, "--address", "10.0.0.1,192.0.2.1").addresses);
    }

    @Test
    void busyPollIsOffByDefaultAndTakenInMicroseconds() {
        assertEquals(0, EchoOptions.parse(EchoOptions.Role.SERVER).busyPollMicros);
        assertEquals(100, EchoOptions.parse(EchoOptions.Role.CLIENT, "--busy-poll", "100").busyPollMicros);
        assertTrue(EchoOptions.usage(EchoOptions.Role.SERVER).contains("--busy-poll=MICROS"));
        assertMessage("--busy-poll: -1 is out of range [0, 1000000]", "--busy-poll", "-1");
    }

    @Test
    void mistakesNameTheOption() {
        assertMessage("--inline: 512 bytes is out of range [1024, 262144]", "--inline", "512");
        assertMessage("Missing required parameter for option '--count' (N)", "--count");
        assertMessage("'--verbose' should be specified without 'yes' parameter", "--verbose=yes");
        assertMessage("--port: 'x' is not a number", "--port", "x");
        assertMessage("--size: '1g' is not a byte count", "--size", "1g");
        assertMessage("unexpected argument 'foo'", "foo");
        assertMessage("--address: the client calls one server address", "--address", "a,b");
    }

    private static void assertMessage(String expected, String... args) {
        UserError e = assertThrows(UserError.class, () -> EchoOptions.parse(EchoOptions.Role.CLIENT, args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void helpListsOnlyTheRolesOptions() {
        String server = EchoOptions.usage(EchoOptions.Role.SERVER);
        assertTrue(server.contains("--transport=rdma|tcp"), server);
        assertFalse(server.contains("--count"));
        String client = EchoOptions.usage(EchoOptions.Role.CLIENT);
        assertTrue(client.contains("--embedded-server"));
        assertTrue(client.contains("--concurrency=N"));
    }
}
