package dev.rpcrdma.oncrpc.message;

import io.netty.util.internal.ObjectUtil;

/**
 * Base of the protocol constant value classes ({@link MsgType}, {@link ReplyStat}, {@link AcceptStat},
 * {@link RejectStat}, {@link AuthStat}, {@link AuthFlavor}), in the style of Netty codec-dns's
 * {@code DnsRecordType}: a wire value and a name; two constants of the same class are equal when their values
 * are, so values received from a peer that have no name are still representable. Protocols layered on ONC RPC
 * (e.g. the RPC-over-RDMA transport header's {@code rdma_proc}) extend it for their own constants.
 */
public abstract class RpcConstant implements Comparable<RpcConstant> {

    private final int intValue;
    private final String name;

    /** A constant with the given wire value and spec name. */
    protected RpcConstant(int intValue, String name) {
        this.intValue = intValue;
        this.name = ObjectUtil.checkNotNull(name, "name");
    }

    /** The value on the wire. */
    public final int intValue() {
        return intValue;
    }

    /** The name the specification uses (or {@code UNKNOWN(n)}). */
    public final String name() {
        return name;
    }

    @Override
    public final int hashCode() {
        return intValue;
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && ((RpcConstant) o).intValue == intValue;
    }

    @Override
    public final int compareTo(RpcConstant o) {
        return Integer.compare(intValue, o.intValue);
    }

    @Override
    public final String toString() {
        return name;
    }
}
