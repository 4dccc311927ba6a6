package dev.rpcrdma.channel.fabric.software;

/** A receive queue entry: a posted receive work request (one SGE). One per slot of the receive ring, reused. */
final class SoftRecvWr {
    long wrId;
    long address;
    int length;
    int lkey;

    SoftRecvWr load(long wrId, long address, int length, int lkey) {
        this.wrId = wrId;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        return this;
    }
}
