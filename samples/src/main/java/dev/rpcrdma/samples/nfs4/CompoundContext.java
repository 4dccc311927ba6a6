package dev.rpcrdma.samples.nfs4;

import dev.rpcrdma.oncrpc.message.AuthSysCredential;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;

import java.nio.ByteBuffer;

/**
 * The state of one COMPOUND while it runs (RFC 5661 §16.2.3): current and saved file handles, current stateid,
 * the session and slot SEQUENCE established, the caller's AUTH_SYS identity, and the server. Confined to the
 * compound's processing (with the {@link Nfs4State} lock held).
 */
final class CompoundContext {
    /** "No file handle". */
    static final long NONE = -1;
    /** Magic at the start of our file handles. */
    private static final int FH_MAGIC = 0x4e465334;

    final Nfs4Server server;
    final Nfs4State state;
    final Nfs4FileSystem fs;
    final RpcCallContext call;
    final int uid;
    final int gid;
    /** Whether the export accepts the call's security flavor for its file handles (RFC 5661 §2.6.3.1). */
    final boolean secure;
    /** The reply's RPC header and, under RPCSEC_GSS, room for its verifier and protection. */
    final int replyHeader;
    long currentFh = NONE;
    long savedFh = NONE;
    /**
     * The current stateid (RFC 5661 §16.2.3.1.2), null for the all-zeros one: set by the operations that return a
     * stateid, reset by every other one that changes the current file handle ({@link #moveTo}); saved and
     * restored with the file handle by SAVEFH and RESTOREFH.
     */
    StateId currentStateid;
    StateId savedStateid;
    Session session;
    /** The slot of a new request SEQUENCE accepted (its reply is cached at the end), or null. */
    Session.Slot slot;
    /** The client asked this reply to be cached (sa_cachethis). */
    boolean cacheThis;
    /** A retransmission's cached reply that answers the whole compound, or null. */
    io.netty.buffer.ByteBuf replay;
    /** The number of operations in the compound and its inline size (SEQUENCE checks them). */
    int opCount;
    int requestSize;

    CompoundContext(Nfs4Server server, RpcCallContext call) {
        this.server = server;
        this.state = server.state();
        this.fs = server.fileSystem();
        this.call = call;
        AuthSysCredential cred = call.authSys();
        if (call.identity() instanceof ExportSecurity.Identity id) {   // RPCSEC_GSS: the mapped principal
            this.uid = id.uid();
            this.gid = id.gid();
        } else {
            this.uid = cred != null ? cred.uid() : ExportSecurity.NOBODY;
            this.gid = cred != null ? cred.gid() : ExportSecurity.NOBODY;
        }
        this.secure = server.security().allows(call);
        this.replyHeader = call.auth() != null ? REPLY_HEADER + GSS_REPLY_OVERHEAD : REPLY_HEADER;
    }

    /**
     * Makes {@code fh} the current file handle, for an operation that returns no stateid: the current stateid
     * becomes the all-zeros stateid (RFC 5661 §16.2.3.1.2), so a later "current stateid" argument is BAD_STATEID.
     */
    void moveTo(long fh) {
        currentFh = fh;
        currentStateid = null;
    }

    /** The size of an RPC reply header before the results: AUTH_NONE verifier, SUCCESS (RFC 5531 §9). */
    static final int REPLY_HEADER = 24;
    /**
     * What RPCSEC_GSS adds to a reply at most with Kerberos V5 (AES): a MIC verifier instead of AUTH_NONE's, and
     * the integrity checksum or the privacy seal around the results.
     */
    static final int GSS_REPLY_OVERHEAD = 192;

    /**
     * The status a reply of {@code replyBytes} (RPC header included) gets in this compound's session (RFC 5661
     * §2.10.6.4): REP_TOO_BIG over the session's ca_maxresponsesize, REP_TOO_BIG_TO_CACHE over its
     * ca_maxresponsesize_cached when the client asked for the reply to be cached, else NFS4_OK.
     */
    int replyLimitStatus(long replyBytes) {
        if (session == null) {
            return Nfs4.NFS4_OK;
        }
        if (replyBytes > session.fore.maxResponseSize()) {
            return Nfs4.NFS4ERR_REP_TOO_BIG;
        }
        if (cacheThis && replyBytes > session.fore.maxResponseSizeCached()) {
            return Nfs4.NFS4ERR_REP_TOO_BIG_TO_CACHE;
        }
        return Nfs4.NFS4_OK;
    }

    /**
     * Checks, before an operation does anything, that {@code more} bytes of results still fit in the reply
     * (e.g. READ's data, which cannot be taken back once placed): REP_TOO_BIG or REP_TOO_BIG_TO_CACHE if not.
     */
    void reserve(XdrPayload out, long more) throws Nfs4Exception {
        int status = replyLimitStatus(replyHeader + (long) out.inlineLength() + more);
        if (status != Nfs4.NFS4_OK) {
            throw new Nfs4Exception(status);
        }
    }

    /** The client of the compound's session: OP_NOT_IN_SESSION... is caught earlier; here a session exists. */
    ClientRecord client() throws Nfs4Exception {
        if (session == null) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_OP_NOT_IN_SESSION);
        }
        return session.client;
    }

    long current() throws Nfs4Exception {
        if (currentFh == NONE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOFILEHANDLE);
        }
        return currentFh;
    }

    long saved() throws Nfs4Exception {
        if (savedFh == NONE) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOFILEHANDLE);
        }
        return savedFh;
    }

    /** The current file handle, which must be a directory (NOTDIR otherwise). */
    long currentDirectory() throws Nfs4Exception {
        long fh = current();
        if (!fs.attrs(fh).isDirectory()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NOTDIR);
        }
        return fh;
    }

    static byte[] fileHandle(long fileid) {
        return ByteBuffer.allocate(12).putInt(FH_MAGIC).putLong(fileid).array();
    }

    /** The file id in a handle; BADHANDLE if it is not one of ours (RFC 5661 §4.2.3). */
    static long fileid(byte[] fh) throws Nfs4Exception {
        if (fh.length != 12) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADHANDLE);
        }
        ByteBuffer b = ByteBuffer.wrap(fh);
        if (b.getInt() != FH_MAGIC) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADHANDLE);
        }
        return b.getLong();
    }

    /** Checks a component name (RFC 5661 §14.2, §18.15.3): INVAL empty, NAMETOOLONG, BADNAME for ".", ".." or "/". */
    static String checkName(String name) throws Nfs4Exception {
        if (name.isEmpty()) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_INVAL);
        }
        if (name.length() > Nfs4.MAX_NAME) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_NAMETOOLONG);
        }
        if (name.equals(".") || name.equals("..") || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new Nfs4Exception(Nfs4.NFS4ERR_BADNAME);
        }
        return name;
    }

    /** What the attribute encoder needs for the object {@code fileid}. */
    Attributes.Context attrContext(long fileid) {
        return new Attributes.Context(fileHandle(fileid), state.leaseSeconds, fs.space(), Nfs4.NFS4_OK);
    }

}
