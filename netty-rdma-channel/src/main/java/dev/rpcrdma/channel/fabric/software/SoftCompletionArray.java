package dev.rpcrdma.channel.fabric.software;

import dev.rpcrdma.channel.fabric.CompletionArray;

/** Completion array over parallel Java arrays. */
final class SoftCompletionArray implements CompletionArray {
    final long[] wrId;
    final int[] status;
    final int[] opcode;
    final int[] byteLength;
    final int[] flags;
    final int[] invalidatedRkey;
    final int[] qpNum;

    SoftCompletionArray(int capacity) {
        wrId = new long[capacity];
        status = new int[capacity];
        opcode = new int[capacity];
        byteLength = new int[capacity];
        flags = new int[capacity];
        invalidatedRkey = new int[capacity];
        qpNum = new int[capacity];
    }

    void set(int i, SoftCompletion c) {
        wrId[i] = c.wrId;
        status[i] = c.status;
        opcode[i] = c.opcode;
        byteLength[i] = c.byteLength;
        flags[i] = c.flags;
        invalidatedRkey[i] = c.invalidatedRkey;
        qpNum[i] = c.qpNum;
    }

    @Override
    public int capacity() {
        return wrId.length;
    }

    @Override
    public long wrId(int i) {
        return wrId[i];
    }

    @Override
    public int status(int i) {
        return status[i];
    }

    @Override
    public int opcode(int i) {
        return opcode[i];
    }

    @Override
    public int byteLength(int i) {
        return byteLength[i];
    }

    @Override
    public int flags(int i) {
        return flags[i];
    }

    @Override
    public int invalidatedRkey(int i) {
        return invalidatedRkey[i];
    }

    @Override
    public int qpNum(int i) {
        return qpNum[i];
    }

    @Override
    public int vendorError(int i) {
        return 0;
    }
}
