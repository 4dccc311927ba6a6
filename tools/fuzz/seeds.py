#!/usr/bin/env python3
"""Writes the checked-in seed corpus of the fuzz targets: one seed per bad-input class of the unit tests
(XdrReaderTest, RpcMessageCodecTest, RecordMarkingTest, RpcRdmaHeaderCodecTest, RpcRdmaPrivateDataTest, the responder's
and requester's tests) plus valid messages. Run from the repository root; the files are deterministic."""
import os
import struct

def w(*ints):
    return b''.join(struct.pack('>I', i & 0xffffffff) for i in ints)

def opaque(b):
    return w(len(b)) + b + b'\0' * ((4 - len(b) % 4) % 4)

def save(base, name, data):
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, name), 'wb') as f:
        f.write(data)

CODEC = 'rpc-codec/src/test/resources/dev/rpcrdma/oncrpc/fuzz/RpcCodecFuzzTestInputs/'
HANDLERS = 'rpcrdma-handlers/src/test/resources/dev/rpcrdma/handlers/fuzz/RpcRdmaFuzzTestInputs/'

# ---- XdrReader: byte 0 = op count | 0x10 placed; ops; [placed length, placed]; stream
x = CODEC + 'xdrReader'
def prog(ops, stream, placed=None):
    b0 = len(ops) | (0x10 if placed is not None else 0)
    head = bytes([b0]) + bytes(ops)
    if placed is not None:
        head += bytes([len(placed)]) + placed
    return head + stream
save(x, 'every-primitive', prog([0x00, 0x01, 0x02, 0x03, 0x14, 0x17, 0x18, 0x0b],
     w(7, 0xffffffff) + w(1, 2) + w(1) + opaque(b'abc') + opaque(b'hello') + w(2, 1, 2) + w(5)))
save(x, 'opaque-over-bound', prog([0x14], w(100) + b'x' * 100))
save(x, 'opaque-over-remaining', prog([0xf4], w(900) + b'x' * 8))
save(x, 'opaque-huge-length', prog([0xf5], w(0xfffffffc) + b'x' * 8))
save(x, 'missing-pad', prog([0x14], w(3) + b'abc'))
save(x, 'string-over-bound', prog([0x17], w(65) + b's' * 68))
save(x, 'string-over-remaining', prog([0xf7], w(500) + b's' * 4))
save(x, 'array-over-bound', prog([0x18], w(65) + w(0) * 65))
save(x, 'array-over-remaining', prog([0xf8], w(900) + w(0) * 2))
save(x, 'truncated-hyper', prog([0x02], w(1)))
save(x, 'bad-bool', prog([0x03], w(2)))
save(x, 'fixed-opaque-truncated', prog([0xf9], b'ab'))
save(x, 'ddp-placed', prog([0x1a, 0x1a], w(8) + opaque(b'inline!'), placed=b'placed!!'))
save(x, 'ddp-length-mismatch', prog([0x1a], w(4), placed=b'placed!!'))
save(x, 'ddp-over-bound', prog([0x0a], w(8), placed=b'placed!!'))
save(x, 'ddp-empty-slot-not-inline', prog([0x1a, 0x1a], w(4) + b'abcd' + w(40), placed=b'abcd'))

# ---- RPC messages (RFC 5531 §9)
def call(xid=1, rpcvers=2, prog_=100003, vers=3, proc=0, cred=(0, b''), verf=(0, b''), args=b''):
    return w(xid, 0, rpcvers, prog_, vers, proc) + w(cred[0]) + opaque(cred[1]) + w(verf[0]) + opaque(verf[1]) + args
def authsys(stamp=1, machine=b'host', uid=0, gid=0, gids=()):
    return w(stamp) + opaque(machine) + w(uid, gid, len(gids), *gids)
m = CODEC + 'rpcMessage'
VALID = {
    'call-null': call(),
    'call-authsys': call(cred=(1, authsys(gids=(1, 2, 3))), args=w(42)),
    'reply-success': w(1, 1, 0, 0, 0, 0) + w(7),
    'reply-prog-mismatch': w(1, 1, 0, 0, 0, 2, 2, 3),
    'reply-denied-rpc-mismatch': w(1, 1, 1, 0, 2, 2),
    'reply-denied-auth-error': w(1, 1, 1, 1, 1),
}
BAD = {
    'call-rpcvers3': call(rpcvers=3),
    'call-credential-over-400': w(1, 0, 2, 100003, 3, 0, 1, 404) + b'c' * 404 + w(0, 0),
    'call-verifier-over-400': w(1, 0, 2, 100003, 3, 0, 0, 0, 0, 1000) + b'v' * 8,
    'unknown-msg-type': w(1, 2, 2),
    'truncated-header': w(1, 0, 2, 100003),
    'truncated-credential': w(1, 0, 2, 100003, 3, 0, 1, 40) + b'c' * 8,
    'unknown-credential-flavor': call(cred=(0x12345, b'opaque credential')),
    'authsys-machinename-too-long': call(cred=(1, authsys(machine=b'm' * 256))),
    'authsys-too-many-gids': call(cred=(1, authsys(gids=tuple(range(17))))),
    'authsys-truncated': call(cred=(1, w(1, 200))),
    'unknown-reply-stat': w(1, 1, 2),
    'unknown-accept-stat': w(1, 1, 0, 0, 0, 9),
    'unknown-reject-stat': w(1, 1, 1, 7),
    'unknown-auth-stat': w(1, 1, 1, 1, 99),
    'empty': b'',
}
for k, v in {**VALID, **BAD}.items():
    save(m, k, v)

# ---- Record marking: byte 0 = read size - 1 (low 7 bits) | 0x80 for a 64-byte maximum record
r = CODEC + 'recordMarking'
LAST = 0x80000000
def rec(msg, last=True):
    return w(len(msg) | (LAST if last else 0)) + msg
valid = call(args=w(1, 2, 3))
save(r, 'one-record', bytes([0x7f]) + rec(valid))
save(r, 'multi-fragment-byte-by-byte', bytes([0x00]) + rec(valid[:12], False) + rec(valid[12:20], False)
     + rec(valid[20:]))
save(r, 'empty-and-tiny-fragments', bytes([0x03]) + rec(b'', False) * 5 + b''.join(rec(valid[i:i + 4], False)
     for i in range(0, len(valid) - 4, 4)) + rec(valid[-4:]))
save(r, 'fragment-over-max', bytes([0x8f]) + w(1000 | LAST) + b'x' * 40)
save(r, 'fragments-summing-over-max', bytes([0x8f]) + rec(b'y' * 40, False) + rec(b'z' * 40))
save(r, 'truncated-by-close', bytes([0x07]) + rec(valid)[:-6])
save(r, 'malformed-message-then-valid', bytes([0x1f]) + rec(w(1, 2, 2)) + rec(valid))
save(r, 'two-records-one-read', bytes([0x7f]) + rec(valid) + rec(VALID['reply-success']))

# ---- RPC-over-RDMA (RFC 8166 §4.1)
RDMA_MSG, RDMA_NOMSG, RDMA_MSGP, RDMA_DONE, RDMA_ERROR = 0, 1, 2, 3, 4
def hdr(xid=1, vers=1, credits=8, proc=RDMA_MSG):
    return w(xid, vers, credits, proc)
def seg(handle=0x1234, length=64, offset=0x10000):
    return w(handle, length) + struct.pack('>Q', offset)
def read_list(*items):   # items: (position, segment)
    return b''.join(w(1, pos) + s for pos, s in items) + w(0)
def write_list(*chunks):
    return b''.join(w(1, len(c)) + b''.join(c) for c in chunks) + w(0)
NO_REPLY = w(0)
def reply_chunk(*segs):
    return w(1, len(segs)) + b''.join(segs)
h = HANDLERS + 'headerDecoder'
HEADERS = {
    'inline-msg': hdr() + w(0, 0, 0),
    'all-lists': hdr() + read_list((0, seg()), (16, seg(length=32))) + write_list([seg(), seg()])
        + reply_chunk(seg(length=4096)),
    'long-call-nomsg': hdr(proc=RDMA_NOMSG) + read_list((0, seg(length=8192))) + w(0) + NO_REPLY,
    'err-vers': hdr(proc=RDMA_ERROR) + w(1, 1, 1),
    'err-chunk': hdr(proc=RDMA_ERROR) + w(2),
    'truncated-header': hdr()[:20],
    'bad-version': hdr(vers=2) + w(0, 0, 0),
    'error-other-version': hdr(vers=7, proc=RDMA_ERROR) + w(2),
    'unknown-procedure': hdr(proc=9) + w(0, 0, 0),
    'retired-msgp': hdr(proc=RDMA_MSGP) + w(0, 0, 0),
    'retired-done': hdr(proc=RDMA_DONE) + w(0, 0, 0),
    'read-list-past-buffer': hdr() + w(1, 0) + w(0x1234),
    'misaligned-read-position': hdr() + read_list((3, seg())) + w(0) + NO_REPLY,
    'overlapping-read-chunks': hdr() + read_list((8, seg(length=64)), (8, seg(length=64))) + w(0) + NO_REPLY,
    'zero-segment-write-chunk': hdr() + w(0) + write_list([]) + NO_REPLY,
    'zero-segment-reply-chunk': hdr() + w(0, 0) + reply_chunk(),
    'huge-segment-count': hdr() + w(0, 1, 0x7fffffff) + seg(),
    'oversized-segment': hdr() + w(0) + write_list([seg(length=0x7fffffff)]) + NO_REPLY,
    'total-length-overflow': hdr() + w(0) + write_list([seg(length=0xffffffff), seg(length=0xffffffff)]) + NO_REPLY,
    'too-many-write-chunks': hdr() + w(0) + write_list(*[[seg()] for _ in range(40)]) + NO_REPLY,
    'too-many-read-segments': hdr() + read_list(*[(0, seg()) for _ in range(80)]) + w(0) + NO_REPLY,
    'bad-discriminant': hdr() + w(2, 0, 0),
    'nomsg-without-chunks': hdr(proc=RDMA_NOMSG) + w(0, 0, 0),
    'unknown-error-code': hdr(proc=RDMA_ERROR) + w(77),
    'err-vers-without-range': hdr(proc=RDMA_ERROR) + w(1),
}
for k, v in HEADERS.items():
    save(h, k, v)

# ---- RFC 8797 private data
p = HANDLERS + 'privateData'
def pdata(magic=0xf6ab0e18, ver=1, flags=1, send=7, recv=7):
    return w(magic) + bytes([ver, flags, send, recv])
save(p, 'valid', pdata())
save(p, 'valid-at-offset', b'\0' * 12 + pdata(flags=0, send=0, recv=255))
save(p, 'wrong-magic', pdata(magic=0xf6ab0e19))
save(p, 'wrong-version', pdata(ver=2))
save(p, 'truncated', pdata()[:7])
save(p, 'reserved-flag-bits', pdata(flags=0xff))
save(p, 'empty', b'')

# ---- Responder: a whole received Send (header + RPC), byte 0 = flags (see RpcRdmaFuzzTest)
rs = HANDLERS + 'responder'
rpc = call(xid=1, prog_=0x20000123, vers=1, proc=1, args=w(5) + opaque(b'hello'))
RESP = {
    'inline-call': hdr() + w(0, 0, 0) + rpc,
    'call-with-write-list': hdr() + w(0) + write_list([seg(length=4096)]) + NO_REPLY + rpc,
    'call-with-reply-chunk': hdr() + w(0, 0) + reply_chunk(seg(length=8192)) + rpc,
    'call-with-read-chunk': hdr() + read_list((40, seg(length=64))) + w(0) + NO_REPLY + rpc,
    'long-call': hdr(proc=RDMA_NOMSG) + read_list((0, seg(length=512))) + w(0) + NO_REPLY,
    'xid-mismatch': hdr(xid=2) + w(0, 0, 0) + rpc,
    'no-rpc-after-header': hdr() + w(0, 0, 0),
    'undecodable-rpc': hdr() + w(0, 0, 0) + w(1, 5, 2),
    'rpc-reply-to-responder': hdr() + w(0, 0, 0) + VALID['reply-success'],
    'rdma-error-to-responder': hdr(proc=RDMA_ERROR) + w(2),
    'backward-reply-shape': hdr() + w(0, 0, 0) + VALID['reply-success'],
    'zero-credits-request': hdr(credits=0) + w(0, 0, 0) + rpc,
    'huge-credits-request': hdr(credits=0xffffffff) + w(0, 0, 0) + rpc,
    'chunk-over-max-message': hdr(proc=RDMA_NOMSG) + read_list((0, seg(length=0x7ffffff0))) + w(0) + NO_REPLY,
}
for k, v in {**RESP, **{'header-' + k: v for k, v in HEADERS.items()}}.items():
    save(rs, k, bytes([0]) + v)
# Two Sends in one input: a duplicate xid while the first call is in progress (byte 0 bit 0: split at half).
save(rs, 'duplicate-xid-in-progress', bytes([1]) + RESP['inline-call'] + RESP['inline-call'])

# ---- Requester: a reply to its pending call xid (the target patches the xid), or a backward call
rq = HANDLERS + 'requester'
reply = VALID['reply-success']
REQ = {
    'inline-reply': hdr() + w(0, 0, 0) + reply,
    'reply-with-write-list': hdr() + w(0) + write_list([seg(length=4096)]) + NO_REPLY + reply,
    'reply-with-reply-chunk': hdr(proc=RDMA_NOMSG) + w(0, 0) + reply_chunk(seg(length=8192)),
    'err-chunk': hdr(proc=RDMA_ERROR) + w(2),
    'err-vers': hdr(proc=RDMA_ERROR) + w(1, 1, 1),
    'zero-credits': hdr(credits=0) + w(0, 0, 0) + reply,
    'huge-credits': hdr(credits=0xffffffff) + w(0, 0, 0) + reply,
    'unknown-xid': hdr(xid=0x7777) + w(0, 0, 0) + w(0x7777) + reply[4:],
    'call-on-forward-channel': hdr() + w(0, 0, 0) + call(),
    'backward-call-null': hdr() + w(0, 0, 0) + call(xid=0x4000, prog_=0x40000000, vers=1, proc=0),
    'backward-call-with-chunks': hdr() + read_list((0, seg())) + w(0) + NO_REPLY
        + call(xid=0x4001, prog_=0x40000000, vers=1, proc=1),
    'backward-call-rpcvers3': hdr() + w(0, 0, 0) + call(xid=0x4002, rpcvers=3),
    'backward-calls-over-grant': hdr() + w(0, 0, 0) + call(xid=0x4003, prog_=0x40000000, vers=1, proc=0),
}
for k, v in {**REQ, **{'header-' + k: v for k, v in HEADERS.items()}}.items():
    save(rq, k, bytes([0]) + v)
save(rq, 'backward-calls-over-grant', bytes([0x02]) + REQ['backward-call-null'] * 4)

# ---- RPCSEC_GSS (RFC 2203 §5): credentials, INIT results, calls through the server's authenticator
GSS = 'rpc-codec/src/test/resources/dev/rpcrdma/oncrpc/gss/RpcGssFuzzTestInputs/'
def gss_cred(proc=0, seq=1, service=1, handle=b'\x01' * 8, version=1):
    return w(version, proc, seq, service) + opaque(handle)
c = GSS + 'gssCredential'
save(c, 'data', gss_cred())
save(c, 'init-no-handle', gss_cred(proc=1, seq=0, handle=b''))
save(c, 'destroy-privacy', gss_cred(proc=3, service=3))
save(c, 'version-2', gss_cred(version=2))
save(c, 'unknown-proc', gss_cred(proc=4))
save(c, 'unknown-service', gss_cred(service=0))
save(c, 'handle-over-body', w(1, 0, 1, 1, 396) + b'h' * 8)
save(c, 'trailing-bytes', gss_cred() + w(0))
save(c, 'truncated', w(1, 0))
i = GSS + 'gssInitResult'
save(i, 'complete', opaque(b'\x01' * 8) + w(0, 0, 128) + opaque(b'token'))
save(i, 'continue-needed', opaque(b'\x02' * 8) + w(1, 0, 128) + opaque(b'\x60' * 40))
save(i, 'failure', opaque(b'') + w(0xd0000, 0x25ea10c, 0) + opaque(b''))
save(i, 'token-over-bound', opaque(b'') + w(0, 0, 128, 0x100000) + b't' * 8)
save(i, 'truncated', opaque(b'h'))
a = GSS + 'gssAuthenticator'
PROG1 = dict(prog_=1, vers=1)
save(a, 'data-unknown-handle', call(cred=(6, gss_cred()), verf=(6, b'\x04\x04' + b'm' * 26), **PROG1))
save(a, 'data-auth-none-verifier', call(cred=(6, gss_cred()), **PROG1))
save(a, 'init-junk-token', call(cred=(6, gss_cred(proc=1, seq=0, handle=b'')), args=opaque(b'junk token'), **PROG1))
save(a, 'init-krb5-header', call(cred=(6, gss_cred(proc=1, seq=0, handle=b'')),
     args=opaque(bytes([0x60, 0x13, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x01, 0x00])
                 + b'\x6e\x00'), **PROG1))
save(a, 'init-token-over-bound', call(cred=(6, gss_cred(proc=1, seq=0, handle=b'')), args=w(0x7fffffff), **PROG1))
save(a, 'init-with-handle', call(cred=(6, gss_cred(proc=1)), args=opaque(b'x'), **PROG1))
save(a, 'continue-unknown-handle', call(cred=(6, gss_cred(proc=2)), args=opaque(b'x'), **PROG1))
save(a, 'destroy-unknown-handle', call(cred=(6, gss_cred(proc=3)), verf=(6, b'm' * 28), **PROG1))
save(a, 'credential-version-2', call(cred=(6, gss_cred(version=2)), **PROG1))
save(a, 'credential-truncated', call(cred=(6, w(1, 0)), **PROG1))
