package dev.rpcrdma.channel.fabric.ibverbs;

import com.kenai.jffi.MemoryIO;
import dev.rpcrdma.channel.verbs.Verbs;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * How a completion channel finds the queue an event names, without a device: by address among the queues created
 * on it, a queue created where a destroyed one was taking its place. The channel is a fake
 * {@code struct ibv_comp_channel} (only its fd is read here); the VM's suites take real events.
 */
class NativeCompletionChannelTest {

    @Test
    void anEventsQueueIsFoundByAddressAndAReusedAddressNamesTheNewQueue() {
        Assumptions.assumeTrue(Verbs.loadFailure() == null, () -> "SKIPPED: no libibverbs: " + Verbs.loadFailure());
        MemoryIO memory = MemoryIO.getInstance();
        // struct ibv_comp_channel: context pointer, then the int fd at offset 8; 16 bytes (StructLayoutsTest checks it).
        long fake = memory.allocateMemory(16, true);
        memory.putInt(fake + 8, 42);
        NativeCompletionChannel channel = new NativeCompletionChannel(fake);
        try {
            assertEquals(42, channel.fd());
            NativeCompletionQueue a = new NativeCompletionQueue(0x1000, 0);
            NativeCompletionQueue b = new NativeCompletionQueue(0x2000, 0);
            channel.add(a);
            channel.add(b);
            assertSame(a, channel.queue(0x1000));
            assertSame(b, channel.queue(0x2000));
            assertNull(channel.queue(0x3000));
            NativeCompletionQueue reused = new NativeCompletionQueue(0x1000, 0); // a was destroyed, its address reused
            channel.add(reused);
            assertSame(reused, channel.queue(0x1000));
            assertSame(b, channel.queue(0x2000));
        } finally {
            memory.freeMemory(fake); // not close(): that would ibv_destroy_comp_channel the fake
        }
    }
}
