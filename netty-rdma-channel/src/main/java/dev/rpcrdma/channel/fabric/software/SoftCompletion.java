package dev.rpcrdma.channel.fabric.software;

/** One generated work completion ({@code struct ibv_wc}). */
final class SoftCompletion {
    final long wrId;
    final int status;
    final int opcode;
    final int byteLength;
    final int flags;
    final int invalidatedRkey;
    final int qpNum;

    SoftCompletion(long wrId, int status, int opcode, int byteLength, int flags, int invalidatedRkey, int qpNum) {
        this.wrId = wrId;
        this.status = status;
        this.opcode = opcode;
        this.byteLength = byteLength;
        this.flags = flags;
        this.invalidatedRkey = invalidatedRkey;
        this.qpNum = qpNum;
    }
}
