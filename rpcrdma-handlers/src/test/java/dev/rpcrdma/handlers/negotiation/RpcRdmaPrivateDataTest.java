package dev.rpcrdma.handlers.negotiation;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RpcRdmaPrivateDataTest {

    @Test
    void encodesTheRfc8797Layout() {
        byte[] wire = new RpcRdmaPrivateData(true, 4096, 1024).encode();
        assertArrayEquals(new byte[] {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 1, 3, 0}, wire);
        assertArrayEquals(new byte[] {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 0, (byte) 255, (byte) 255},
                new RpcRdmaPrivateData(false, 262144, 262144).encode());
    }

    @Test
    void roundTripsAndIsFoundAtAnyOffset() {
        RpcRdmaPrivateData pd = new RpcRdmaPrivateData(true, 65536, 4096);
        byte[] wire = pd.encode();
        assertEquals(pd, RpcRdmaPrivateData.find(wire));
        byte[] padded = new byte[56];
        System.arraycopy(wire, 0, padded, 13, wire.length); // unaligned, after another layer's bytes
        padded[0] = (byte) 0xf6; // a partial false match must not confuse the search
        assertEquals(pd, RpcRdmaPrivateData.find(padded));
    }

    @Test
    void wrongMagicVersionOrTruncationMeansDefaults() {
        byte[] wire = new RpcRdmaPrivateData(true, 8192, 8192).encode();
        byte[] badMagic = wire.clone();
        badMagic[2] = 0;
        assertNull(RpcRdmaPrivateData.find(badMagic));
        byte[] badVersion = wire.clone();
        badVersion[4] = 2;
        assertNull(RpcRdmaPrivateData.find(badVersion));
        byte[] truncated = java.util.Arrays.copyOf(wire, 7);
        assertNull(RpcRdmaPrivateData.find(truncated));
        assertSame(RpcRdmaPrivateData.DEFAULTS, RpcRdmaPrivateData.parseOrDefaults(truncated));
        assertSame(RpcRdmaPrivateData.DEFAULTS, RpcRdmaPrivateData.parseOrDefaults(null));
        assertFalse(RpcRdmaPrivateData.DEFAULTS.remoteInvalidation());
        assertEquals(1024, RpcRdmaPrivateData.DEFAULTS.sendSize());
    }

    @Test
    void reservedFlagBitsAreIgnored() {
        byte[] wire = new RpcRdmaPrivateData(false, 2048, 2048).encode();
        wire[5] = (byte) 0xfe; // reserved bits set, R clear
        RpcRdmaPrivateData pd = RpcRdmaPrivateData.find(wire);
        assertFalse(pd.remoteInvalidation());
        wire[5] = (byte) 0xff;
        assertTrue(RpcRdmaPrivateData.find(wire).remoteInvalidation());
    }

    @Test
    void sizesAreBoundedAndRounded() {
        assertThrows(IllegalArgumentException.class, () -> new RpcRdmaPrivateData(false, 512, 1024));
        assertThrows(IllegalArgumentException.class, () -> new RpcRdmaPrivateData(false, 1024, 300 * 1024));
        assertThrows(IllegalArgumentException.class, () -> new RpcRdmaPrivateData(false, 1500, 1024));
        RpcRdmaPrivateData pd = RpcRdmaPrivateData.of(true, 5000, 1 << 20);
        assertEquals(4096, pd.sendSize());
        assertEquals(262144, pd.receiveSize());
    }

    @Test
    void thresholdsTakeTheMinimumOfEachDirection() {
        RpcRdmaPrivateData client = new RpcRdmaPrivateData(true, 65536, 4096);
        RpcRdmaPrivateData server = new RpcRdmaPrivateData(true, 8192, 16384);
        InlineThresholds c = InlineThresholds.negotiate(client, server);
        assertEquals(16384, c.sendThreshold()); // min(client send 64K, server receive 16K)
        assertEquals(4096, c.receiveThreshold()); // min(server send 8K, client receive 4K)
        assertTrue(c.remoteInvalidation());
        InlineThresholds s = InlineThresholds.negotiate(server, client);
        assertEquals(c.receiveThreshold(), s.sendThreshold());
        assertEquals(c.sendThreshold(), s.receiveThreshold());
        InlineThresholds old = InlineThresholds.negotiate(client, RpcRdmaPrivateData.DEFAULTS);
        assertEquals(1024, old.sendThreshold());
        assertEquals(1024, old.receiveThreshold());
        assertFalse(old.remoteInvalidation());
    }
}
