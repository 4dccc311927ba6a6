package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CompletionChannel;
import dev.rpcrdma.channel.fabric.CompletionQueue;
import dev.rpcrdma.channel.fabric.FabricException;
import dev.rpcrdma.channel.fabric.ProtectionDomain;
import dev.rpcrdma.channel.fabric.VerbsDevice;

import java.io.IOException;

/**
 * The one device of a software fabric ("soft0"); limits chosen like a small rxe, or like siw while the fabric is
 * {@linkplain SoftwareFabric#likeSiw like siw}.
 */
final class SoftDevice implements VerbsDevice {
    /** Queue pairs asking for more inline data are refused ({@code EINVAL}), as a provider refuses them. */
    static final int MAX_INLINE_DATA = 256;
    static final int MAX_SGE = 16;
    /** siw's limits ({@code SIW_MAX_INLINE}, {@code SIW_MAX_SGE}, {@code SIW_MAX_SGE_RD}: siw.h). */
    static final int SIW_MAX_INLINE_DATA = 80;
    static final int SIW_MAX_SGE = 6;
    static final int SIW_MAX_SGE_RD = 1;
    static final int MAX_QP_WR = 16384;
    static final int MAX_CQE = 65536;

    private final SoftwareFabric fabric;

    SoftDevice(SoftwareFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public boolean localInvalidateSupported() {
        return !fabric.likeRxe;
    }

    @Override
    public String name() {
        return "soft0";
    }

    @Override
    public int maxSge() {
        return fabric.likeSiw ? SIW_MAX_SGE : MAX_SGE;
    }

    @Override
    public int maxSgeRd() {
        return fabric.likeSiw ? SIW_MAX_SGE_RD : MAX_SGE;
    }

    @Override
    public boolean memoryWindowsSupported() {
        return !fabric.likeSiw;
    }

    @Override
    public boolean iwarp() {
        return fabric.likeSiw;
    }

    /** Queue pairs asking for more inline data are refused ({@code EINVAL}), as a provider refuses them. */
    int maxInlineData() {
        return fabric.likeSiw ? SIW_MAX_INLINE_DATA : MAX_INLINE_DATA;
    }

    @Override
    public int maxCqe() {
        return MAX_CQE;
    }

    @Override
    public int maxQpWr() {
        return MAX_QP_WR;
    }

    @Override
    public ProtectionDomain allocProtectionDomain() {
        return new SoftProtectionDomain(fabric);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        return new SoftCompletionChannel(fabric);
    }

    @Override
    public CompletionQueue createCompletionQueue(int cqe, CompletionChannel channel) throws IOException {
        if (cqe <= 0 || cqe > MAX_CQE) {
            throw new FabricException("ibv_create_cq: cqe " + cqe, FabricException.EINVAL);
        }
        return new SoftCompletionQueue(fabric, cqe, (SoftCompletionChannel) channel);
    }
}
