package dev.rpcrdma.handlers.backchannel;

import dev.rpcrdma.handlers.ByteFraming;
import dev.rpcrdma.handlers.RpcRdmaConfig;
import dev.rpcrdma.handlers.RpcRdmaStats;
import dev.rpcrdma.oncrpc.RpcStats;
import io.netty.util.internal.ObjectUtil;

/**
 * What one backchannel role ({@link BackwardRequester} or {@link BackwardResponder}) is made of: the side's
 * {@link RpcRdmaConfig} (its {@link RpcRdmaConfig#backwardCredits()}), its counters and the message form. Immutable;
 * {@code with*} methods return copies.
 */
public final class BackwardSetup {

    final RpcRdmaConfig config;
    final RpcRdmaStats stats;
    final RpcStats rpcStats;
    final ByteFraming framing;

    private BackwardSetup(RpcRdmaConfig config, RpcRdmaStats stats, RpcStats rpcStats, ByteFraming framing) {
        this.config = ObjectUtil.checkNotNull(config, "config");
        this.stats = ObjectUtil.checkNotNull(stats, "stats");
        this.rpcStats = ObjectUtil.checkNotNull(rpcStats, "rpcStats");
        this.framing = framing;
    }

    /**
     * A backchannel role with {@code config} and these counters, handing RPC messages up. Its credits are
     * {@link RpcRdmaConfig#backwardCredits()}: the backward credits a client grants (and the receives it keeps posted
     * for backward calls), or the receives a server reserves for backward replies (its most backward calls at once).
     */
    public static BackwardSetup of(RpcRdmaConfig config, RpcRdmaStats stats, RpcStats rpcStats) {
        return new BackwardSetup(config, stats, rpcStats, null);
    }

    /**
     * In byte framing (null: RPC messages): backward calls (client) or backward replies (server) are handed up as
     * {@code ByteBuf}s each holding one whole RPC message, not decoded. Use the framing of the forward role the
     * backchannel serves ({@code RequesterSetup.withFraming}, {@code ResponderSetup.withFraming}).
     */
    public BackwardSetup withFraming(ByteFraming framing) {
        return new BackwardSetup(config, stats, rpcStats, framing);
    }

    public RpcRdmaConfig config() {
        return config;
    }

    /** The byte framing, or null for RPC messages. */
    public ByteFraming framing() {
        return framing;
    }

    @Override
    public String toString() {
        return "BackwardSetup(" + config + ", " + (framing != null ? framing : "RPC messages") + ')';
    }
}
