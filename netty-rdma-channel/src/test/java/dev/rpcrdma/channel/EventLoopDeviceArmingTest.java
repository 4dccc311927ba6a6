package dev.rpcrdma.channel;

import dev.rpcrdma.channel.fabric.CompletionArray;
import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.VerbsDevice;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayDeque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EventLoopDevice}'s arming: a queue is armed again when its event is taken, so that the poll finding what raised
 * the event also counts as the poll after arming; before sleeping, a queue armed and found empty since then needs
 * neither another arming nor another poll, and one that was not is armed and must be polled again. A fake queue
 * counts the calls and plays the device's one notification per arming.
 */
class EventLoopDeviceArmingTest {

    /** A completion queue: completions to hand out, and the device's notification state. */
    private static final class FakeCq implements CompletionQueue {
        final ArrayDeque<Long> pending = new ArrayDeque<>();
        int polls;
        int arms;
        boolean deviceArmed;
        int eventsRaised;

        /** A completion arrives: it raises an event if the queue is armed (once per arming). */
        void complete(long wrId) {
            pending.add(wrId);
            if (deviceArmed) {
                deviceArmed = false;
                eventsRaised++;
            }
        }

        @Override
        public CompletionArray newCompletionArray(int capacity) {
            return new FakeArray(capacity);
        }

        @Override
        public int poll(CompletionArray out) {
            polls++;
            FakeArray a = (FakeArray) out;
            int n = 0;
            while (n < a.capacity() && !pending.isEmpty()) {
                a.wrIds[n++] = pending.poll();
            }
            return n;
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
            arms++;
            deviceArmed = true;
        }

        @Override
        public void ackEvents(int count) {
        }

        @Override
        public void close() {
        }
    }

    private static final class FakeArray implements CompletionArray {
        final long[] wrIds;

        FakeArray(int capacity) {
            wrIds = new long[capacity];
        }

        @Override
        public int capacity() {
            return wrIds.length;
        }

        @Override
        public long wrId(int i) {
            return wrIds[i];
        }

        @Override
        public int status(int i) {
            return 0;
        }

        @Override
        public int opcode(int i) {
            return 0;
        }

        @Override
        public int byteLength(int i) {
            return 0;
        }

        @Override
        public int flags(int i) {
            return 0;
        }

        @Override
        public int invalidatedRkey(int i) {
            return 0;
        }

        @Override
        public int qpNum(int i) {
            return 0;
        }

        @Override
        public int vendorError(int i) {
            return 0;
        }
    }

    private static final class FakeDevice implements VerbsDevice {
        FakeCq cq;

        @Override
        public String name() {
            return "fake0";
        }

        @Override
        public int maxSge() {
            return 4;
        }

        @Override
        public int maxQpWr() {
            return 1024;
        }

        @Override
        public int maxCqe() {
            return 4096;
        }

        @Override
        public ProtectionDomain allocProtectionDomain() {
            return null;
        }

        @Override
        public CompletionChannel createCompletionChannel() {
            return new CompletionChannel() {
                @Override
                public int fd() {
                    return -1;
                }

                @Override
                public CompletionQueue getEvent() {
                    return cq;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) {
            cq = new FakeCq();
            return cq;
        }
    }

    /**
     * One completion per wake-up (one call in flight), event-driven: one arming and one poll per wake-up (the poll
     * that finds what raised the event leaves the queue cold), none lost.
     */
    @Test
    void aWakeUpCostsOneArmingAndOnePoll() throws IOException {
        FakeDevice device = new FakeDevice();
        EventLoopDevice d = EventLoopDevice.create(null, device, 16, true);
        d.retain(); // as a channel's reference would: the device stays after a poll
        d.dedicatedCq(64);
        FakeCq cq = device.cq;
        // First idle: a new queue is armed and polled again (a completion may have come before the arming).
        assertEquals(0, d.poll(false));
        assertTrue(d.arm());
        assertEquals(0, d.poll(true));
        assertEquals(1, cq.arms);
        for (int call = 0; call < 5; call++) {
            cq.complete(WorkRequestIds.encode(12345, WorkRequestIds.RECEIVE, call)); // no channel: dropped
            assertEquals(call + 1, cq.eventsRaised, "the completion raised an event: the loop wakes");
            int arms = cq.arms;
            int polls = cq.polls;
            d.completionChannelReady(); // the event taken: the queue is armed again at once
            assertEquals(1, d.poll(false)); // finds what raised the event, and the queue empty after the arming
            assertTrue(d.anyCold(), "drained after its arming: cold at once");
            assertEquals(0, d.poll(false)); // the loop's next round does not poll it
            assertFalse(d.arm(), "armed and drained since its event: no arming, no poll before sleeping");
            assertEquals(arms + 1, cq.arms);
            assertEquals(polls + 1, cq.polls);
        }
        cq.complete(99); // whatever comes next raises an event
        assertEquals(6, cq.eventsRaised);
    }

    /** A busy-polling loop keeps the queue hot after the event's poll: it is polled again on the next round. */
    @Test
    void aBusyPollingLoopPollsAgainAfterTheEventsPoll() throws IOException {
        FakeDevice device = new FakeDevice();
        EventLoopDevice d = EventLoopDevice.create(null, device, 16, false);
        d.retain();
        d.dedicatedCq(64);
        FakeCq cq = device.cq;
        d.poll(false);
        assertTrue(d.arm());
        d.poll(true);
        cq.complete(WorkRequestIds.encode(12345, WorkRequestIds.RECEIVE, 0));
        d.completionChannelReady();
        int polls = cq.polls;
        assertEquals(1, d.poll(false));
        assertFalse(d.anyCold());
        assertEquals(0, d.poll(false));
        assertEquals(polls + 2, cq.polls);
        assertFalse(d.arm(), "armed and drained since its event: no arming before sleeping");
        assertTrue(d.anyCold());
    }

    /** A completion between the event's poll and sleeping raises an event, so no wake-up is lost. */
    @Test
    void aCompletionAfterTheDrainingPollRaisesAnEvent() throws IOException {
        FakeDevice device = new FakeDevice();
        EventLoopDevice d = EventLoopDevice.create(null, device, 16, true);
        d.retain();
        d.dedicatedCq(64);
        FakeCq cq = device.cq;
        d.poll(false);
        d.arm();
        d.poll(true);
        cq.complete(1);
        d.completionChannelReady();
        assertEquals(1, d.poll(false));
        cq.complete(2); // e.g. the reply's Send, posted while the receive was handled
        assertEquals(2, cq.eventsRaised);
        assertFalse(d.arm()); // sleeps: the event is waiting on the channel
        d.completionChannelReady();
        assertEquals(1, d.poll(false));
    }

    /** A queue that was not drained since its arming (a full batch) is armed and must be polled again. */
    @Test
    void aQueueNotDrainedSinceItsArmingIsArmedAndPolledAgain() throws IOException {
        FakeDevice device = new FakeDevice();
        EventLoopDevice d = EventLoopDevice.create(null, device, 4, true);
        d.retain();
        d.dedicatedCq(64);
        FakeCq cq = device.cq;
        for (int i = 0; i < 10; i++) {
            cq.complete(i);
        }
        assertEquals(4, d.poll(false)); // a batch of 4 polls fills its array: not known to be empty
        assertTrue(d.arm(), "never armed: armed now, and the loop polls again before sleeping");
        assertEquals(4, d.poll(true));
        assertEquals(2, d.poll(true)); // short of the array: empty after the arming
        assertFalse(d.arm());
    }
}
