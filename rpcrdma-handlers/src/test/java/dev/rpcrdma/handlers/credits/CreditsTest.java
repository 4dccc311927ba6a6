package dev.rpcrdma.handlers.credits;

import dev.rpcrdma.handlers.credits.ResponderCredits.Admission;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CreditsTest {

    @Test
    void requesterStartsWithOneCreditAndHonoursTheGrant() {
        RequesterCredits credits = new RequesterCredits(32);
        assertEquals(1, credits.grant());
        credits.onCallSent();
        assertFalse(credits.canSend());
        assertThrows(IllegalStateException.class, credits::onCallSent);
        assertTrue(credits.onReply(4), "a reply that frees a credit wakes the queue");
        for (int i = 0; i < 4; i++) {
            credits.onCallSent();
        }
        assertFalse(credits.canSend());
        assertEquals(4, credits.outstanding());
    }

    @Test
    void zeroGrantIsNotStalledOn() {
        RequesterCredits credits = new RequesterCredits(8);
        credits.onCallSent();
        credits.onReply(0);
        assertEquals(1, credits.grant());
        assertTrue(credits.canSend());
    }

    @Test
    void grantAboveMaxIsClampedIncludingUnsignedValues() {
        RequesterCredits credits = new RequesterCredits(8);
        credits.onCallSent();
        credits.onReply(1000);
        assertEquals(8, credits.grant());
        credits.onCallSent();
        credits.onReply(-1); // 0xffffffff unsigned
        assertEquals(8, credits.grant());
    }

    @Test
    void responderNeverGrantsMoreThanPostedReceives() {
        ResponderCredits credits = new ResponderCredits(1, 128);
        assertEquals(Admission.ADMITTED, credits.onCallReceived());
        assertEquals(16, credits.grantForReply(128, 16));
        assertEquals(Admission.ADMITTED, credits.onCallReceived());
        assertEquals(4, credits.grantForReply(4, 16), "adapts to what the requester asks for");
        assertEquals(Admission.ADMITTED, credits.onCallReceived());
        assertEquals(2, credits.grantForReply(128, 2));
        assertEquals(Admission.ADMITTED, credits.onCallReceived());
        assertEquals(1, credits.grantForReply(0, 0), "never grants zero");
    }

    @Test
    void minGrantAppliesWhenReceivesAllow() {
        ResponderCredits credits = new ResponderCredits(8, 64);
        credits.onCallReceived();
        assertEquals(8, credits.grantForReply(1, 32));
    }

    @Test
    void requesterExceedingEveryGrantIsFlagged() {
        ResponderCredits credits = new ResponderCredits(1, 4);
        assertEquals(Admission.ADMITTED, credits.onCallReceived());
        assertEquals(Admission.EXCEEDED_GRANT, credits.onCallReceived(), "only one credit was ever granted");
        assertEquals(1, credits.violations());
    }

    @Test
    void callsSentUnderAnOlderLargerGrantAreAdmitted() {
        ResponderCredits credits = new ResponderCredits(1, 8);
        credits.onCallReceived();
        assertEquals(8, credits.grantForReply(8, 8));
        for (int i = 0; i < 8; i++) {
            assertEquals(Admission.ADMITTED, credits.onCallReceived());
        }
        assertEquals(2, credits.grantForReply(8, 2)); // grant lowered while 7 remain outstanding
        assertEquals(Admission.ADMITTED, credits.onCallReceived());
        assertEquals(Admission.EXCEEDED_GRANT, credits.onCallReceived());
    }
}
