package dev.rpcrdma.channel.fabric.software;

/** A posted receive work request (one SGE). */
final class SoftRecvWr {
    final long wrId;
    final long address;
    final int length;
    final int lkey;

    SoftRecvWr(long wrId, long address, int length, int lkey) {
        this.wrId = wrId;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
    }
}
