package dev.rpcrdma.channel;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalChannel;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link InboundEntry} delivers exactly what the pipeline would, straight to the first handler once adopted. */
class InboundEntryTest {
    private ResourceLeakDetector.Level level;

    /** The entry is for leak detection off (the pipeline touches each message per hop with it on). */
    @BeforeEach
    void leakDetectionOff() {
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterEach
    void restoreLeakDetection() {
        ResourceLeakDetector.setLevel(level);
    }

    /** Records what reaches it, in order; {@code added} once its handlerAdded ran. */
    static final class Recorder extends ChannelDuplexHandler {
        final String name;
        final List<String> seen;
        volatile boolean added;
        RuntimeException failRead;

        Recorder(String name, List<String> seen) {
            this.name = name;
            this.seen = seen;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            added = true;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            synchronized (seen) {
                seen.add(name + (added ? ":read " : ":read-before-added ") + msg);
            }
            if (failRead != null) {
                throw failRead;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            synchronized (seen) {
                seen.add(name + ":complete");
            }
            ctx.fireChannelReadComplete();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            synchronized (seen) {
                seen.add(name + ":caught " + cause.getMessage());
            }
        }

        @Override
        public void read(ChannelHandlerContext ctx) {
            synchronized (seen) {
                seen.add(name + ":read()");
            }
            ctx.read();
        }
    }

    /** Passes everything on (Netty's adapters' methods are all marked to be skipped). */
    static final class Skipping extends ChannelInboundHandlerAdapter {
    }

    @Test
    void adoptsTheFirstHandlerAfterItsTaskAndDeliversAsThePipelineDoes() {
        List<String> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        Recorder a = new Recorder("a", seen);
        Recorder b = new Recorder("b", seen);
        ch.pipeline().addLast(a, b);
        InboundEntry entry = new InboundEntry(ch);

        entry.fireChannelRead("1");
        assertNull(entry.adopted(), "adopted only by a task of the loop");
        ch.runPendingTasks();
        assertSame(ch.pipeline().context(a), entry.adopted());
        entry.fireChannelRead("2");
        entry.fireChannelReadComplete();
        assertEquals(List.of("a:read 1", "b:read 1", "a:read 2", "b:read 2", "a:complete", "b:complete",
                "b:read()", "a:read()"), seen, "the same events in the same order, and the head's read()");

        // A handler added before it: through the pipeline until the new first one is adopted.
        seen.clear();
        Recorder c = new Recorder("c", seen);
        ch.pipeline().addFirst(c);
        entry.fireChannelRead("3");
        ch.runPendingTasks();
        assertSame(ch.pipeline().context(c), entry.adopted());
        entry.fireChannelRead("4");
        ch.pipeline().remove(c);
        entry.fireChannelRead("5");
        assertEquals(List.of("c:read 3", "a:read 3", "b:read 3", "c:read 4", "a:read 4", "b:read 4", "a:read 5",
                "b:read 5"), seen);
        ch.finishAndReleaseAll();
    }

    @Test
    void withLeakDetectionOnEverythingGoesThroughThePipeline() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        List<String> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(new Recorder("a", seen));
        InboundEntry entry = new InboundEntry(ch);
        entry.fireChannelRead("1");
        ch.runPendingTasks();
        entry.fireChannelRead("2");
        assertNull(entry.adopted());
        assertEquals(List.of("a:read 1", "a:read 2"), seen);
        ch.finishAndReleaseAll();
    }

    @Test
    void aFirstHandlerThatSkipsTheEventIsPassedOverAsThePipelineDoes() {
        List<String> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast(new Skipping(), new Recorder("b", seen));
        InboundEntry entry = new InboundEntry(ch);
        for (int i = 0; i < 3; i++) {
            entry.fireChannelRead("m" + i);
            entry.fireChannelReadComplete();
            ch.runPendingTasks();
        }
        assertEquals(List.of("b:read m0", "b:complete", "b:read()", "b:read m1", "b:complete", "b:read()",
                "b:read m2", "b:complete", "b:read()"), seen);
        assertTrue(InboundEntry.handles(Recorder.class, "channelRead", ChannelHandlerContext.class, Object.class));
        assertTrue(!InboundEntry.handles(Skipping.class, "channelRead", ChannelHandlerContext.class, Object.class),
                "Netty's @Skip is seen");
        ch.finishAndReleaseAll();
    }

    @Test
    void aFirstHandlerOnAnotherExecutorIsLeftToThePipeline() throws Exception {
        DefaultEventLoopGroup other = new DefaultEventLoopGroup(1);
        try {
            List<String> seen = new ArrayList<>();
            EmbeddedChannel ch = new EmbeddedChannel();
            ch.pipeline().addLast(other, new Recorder("a", seen));
            InboundEntry entry = new InboundEntry(ch);
            entry.fireChannelRead("1");
            ch.runPendingTasks();
            ChannelHandlerContext adopted = entry.adopted();
            assertSame(ch.pipeline().firstContext(), adopted, "adopted as taking neither event");
            entry.fireChannelRead("2");
            assertTrue(!ch.hasPendingTasks(), "no new adoption per event");
            other.submit(() -> { }).sync();
            synchronized (seen) {
                assertEquals(List.of("a:read 1", "a:read 2"), seen, "delivered on its executor by the pipeline");
            }
            ch.finishAndReleaseAll();
        } finally {
            other.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void whatTheHandlerThrowsGoesToItsExceptionCaught() {
        List<String> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        Recorder a = new Recorder("a", seen);
        a.failRead = new IllegalStateException("boom");
        ch.pipeline().addLast(a);
        InboundEntry entry = new InboundEntry(ch);
        entry.fireChannelRead("1");
        ch.runPendingTasks();
        entry.fireChannelRead("2");
        assertSame(ch.pipeline().context(a), entry.adopted());
        assertEquals(List.of("a:read 1", "a:caught boom", "a:read 2", "a:caught boom"), seen);
        ch.finishAndReleaseAll();
    }

    @Test
    void aHandlerAddedFromAnotherThreadSeesNoReadBeforeItsHandlerAdded() throws Exception {
        DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
        try {
            List<String> seen = new ArrayList<>();
            Channel ch = new LocalChannel();
            group.register(ch).sync();
            Recorder a = new Recorder("a", seen);
            ch.pipeline().addLast(a);
            InboundEntry entry = new InboundEntry(ch);
            ch.eventLoop().submit(() -> entry.fireChannelRead("1")).sync();
            ch.eventLoop().submit(() -> { }).sync(); // the adoption task ran
            assertSame(ch.pipeline().context(a), entry.adopted());

            // The loop is busy while another thread adds a handler first: Netty queues its handlerAdded.
            CountDownLatch added = new CountDownLatch(1);
            Recorder c = new Recorder("c", seen);
            ch.eventLoop().submit(() -> {
                try {
                    added.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                entry.fireChannelRead("2"); // before c's handlerAdded: the pipeline passes c over
            });
            ch.pipeline().addFirst(c);
            added.countDown();
            ch.eventLoop().submit(() -> entry.fireChannelRead("3")).sync();
            ch.eventLoop().submit(() -> entry.fireChannelRead("4")).sync();
            assertSame(ch.pipeline().context(c), entry.adopted());
            synchronized (seen) {
                assertEquals(List.of("a:read 1", "a:read 2", "c:read 3", "a:read 3", "c:read 4", "a:read 4"), seen);
            }
            ch.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }
}
