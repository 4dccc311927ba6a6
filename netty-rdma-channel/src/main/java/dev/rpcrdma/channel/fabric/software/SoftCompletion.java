package dev.rpcrdma.channel.fabric.software;

/** One generated work completion ({@code struct ibv_wc}): an entry of the completion queue's ring, reused. */
final class SoftCompletion {
    long wrId;
    int status;
    int opcode;
    int byteLength;
    int flags;
    int invalidatedRkey;
    int qpNum;

    void set(long wrId, int status, int opcode, int byteLength, int flags, int invalidatedRkey, int qpNum) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.flags = flags;
        this.invalidatedRkey = invalidatedRkey;
        this.qpNum = qpNum;
    }
}
