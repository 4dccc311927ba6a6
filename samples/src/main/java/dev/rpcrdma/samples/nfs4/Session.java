package dev.rpcrdma.samples.nfs4;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Queue;

/**
 * One NFSv4.1 session (RFC 5661 §2.10): its fore-channel slot table with a reply cache (§2.10.6: each slot holds
 * the sequence id of its last request and, when the client asked with sa_cachethis, that request's whole reply
 * for a retransmission), its negotiated channel attributes, and its backchannel: the connection the client
 * bound for callbacks, the callback program and the single backchannel slot (§2.10.6.3) with the queue of
 * callbacks waiting for it. Guarded by the {@link Nfs4State} lock; cached replies are released when the session
 * is destroyed.
 */
final class Session {

    /** One fore-channel slot. */
    static final class Slot {
        int seqid;
        /** The full reply of the last request (RPC results), when it was cached; owned by the slot. */
        ByteBuf cachedReply;
        /** Whether the last request's reply was meant to be cached (else a retry is RETRY_UNCACHED_REP). */
        boolean cached;

        void cache(ByteBuf reply) {
            release();
            cachedReply = reply;
            cached = reply != null;
        }

        void release() {
            if (cachedReply != null) {
                cachedReply.release();
                cachedReply = null;
            }
        }
    }

    final byte[] id;
    final ClientRecord client;
    final ChannelAttrs fore;
    final ChannelAttrs back;
    final Slot[] slots;
    /** The callback program (CREATE_SESSION, replaced by BACKCHANNEL_CTL, RFC 5661 §18.33). */
    int cbProgram;
    /**
     * The security callbacks carry, one the client offered ({@link CallbackSecurity}), or null if it offered
     * none this server can use (then no callbacks, hence no delegations).
     */
    CallbackSecurity cbSecurity;
    /** The connection callbacks go over, or null. */
    Channel backChannel;
    /** Next CB_SEQUENCE sequence id of backchannel slot 0. */
    int cbSeqid = 1;
    boolean cbBusy;
    final Queue<Runnable> cbQueue = new ArrayDeque<>();

    Session(byte[] id, ClientRecord client, ChannelAttrs fore, ChannelAttrs back, int cbProgram,
            CallbackSecurity cbSecurity) {
        this.id = id;
        this.client = client;
        this.fore = fore;
        this.back = back;
        this.cbProgram = cbProgram;
        this.cbSecurity = cbSecurity;
        slots = new Slot[fore.maxRequests()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
    }

    boolean backchannelUp() {
        return backChannel != null && backChannel.isActive();
    }

    /** Whether callbacks can go out: the backchannel is up and the client offered a credential we can use. */
    boolean canCallBack() {
        return cbSecurity != null && backchannelUp();
    }

    void destroy() {
        for (Slot s : slots) {
            s.release();
        }
        cbQueue.clear();
    }

    boolean is(byte[] sessionId) {
        return Arrays.equals(id, sessionId);
    }

    @Override
    public String toString() {
        return "session " + Nfs4State.hex(id);
    }
}
