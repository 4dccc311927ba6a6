package dev.rpcrdma.handlers.backchannel;

import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.handlers.negotiation.InlineThresholds;
import dev.rpcrdma.handlers.requester.RequesterSetup;
import dev.rpcrdma.handlers.responder.ResponderSetup;
import dev.rpcrdma.oncrpc.RpcStats;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The backchannel roles are configured as the forward ones are: one setup, credits from the config, one form. */
class BackwardSetupTest {
    final RpcRdmaStats stats = new RpcRdmaStats();
    final RpcStats rpcStats = new RpcStats();
    final RpcRdmaConfig config = RpcRdmaConfig.DEFAULT.withBackwardCredits(5);
    final ByteFraming framing = ByteFraming.DEFAULT.withRecordMarks(true);

    @Test
    void creditsComeFromTheConfigAndTheFormFromTheSetup() {
        BackwardSetup setup = BackwardSetup.of(config, stats, rpcStats);
        BackwardResponder service = new BackwardResponder(setup);
        BackwardRequester caller = new BackwardRequester(setup.withFraming(framing));
        assertEquals(5, service.grant());
        assertEquals(5, caller.reserved());
        assertNull(service.framing());
        assertSame(framing, caller.framing());
        assertSame(config, setup.config());
    }

    @Test
    void aRequesterInByteFramingRefusesACallbackServiceInAnotherForm() {
        BackwardResponder messages = new BackwardResponder(BackwardSetup.of(config, stats, rpcStats));
        BackwardResponder other = new BackwardResponder(BackwardSetup.of(config, stats, rpcStats)
                .withFraming(ByteFraming.DEFAULT));
        RequesterSetup requester = RequesterSetup.of(config, stats, rpcStats);
        assertThrows(IllegalArgumentException.class,
                () -> requester.withCallbacks(messages).withFraming(framing));
        assertThrows(IllegalArgumentException.class,
                () -> requester.withFraming(framing).withCallbacks(other));
        BackwardResponder same = new BackwardResponder(BackwardSetup.of(config, stats, rpcStats)
                .withFraming(framing));
        requester.withCallbacks(same).withFraming(framing);
        requester.withCallbacks(messages);
    }

    @Test
    void aResponderInByteFramingRefusesABackwardCallerInAnotherForm() {
        BackwardRequester messages = new BackwardRequester(BackwardSetup.of(config, stats, rpcStats));
        ResponderSetup responder = ResponderSetup.of(config, InlineThresholds.DEFAULTS, stats, rpcStats);
        assertThrows(IllegalArgumentException.class,
                () -> responder.withBackward(messages).withFraming(framing));
        BackwardRequester same = new BackwardRequester(BackwardSetup.of(config, stats, rpcStats)
                .withFraming(framing));
        responder.withFraming(framing).withBackward(same);
        responder.withBackward(messages);
    }
}
