package dev.rpcrdma.samples.echo;

import dev.rpcrdma.channel.RdmaConnectionRejectedException;
import dev.rpcrdma.channel.RdmaErrors;
import dev.rpcrdma.handlers.RpcRdmaErrorException;
import dev.rpcrdma.oncrpc.client.RpcConnectionClosedException;
import dev.rpcrdma.oncrpc.client.RpcReplyException;
import dev.rpcrdma.oncrpc.client.RpcTimeoutException;
import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.message.ReplyStat;
import dev.rpcrdma.oncrpc.message.RpcReply;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.unix.Errors;

import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns the failures a user will meet into one line that says what to do. Each method knows the context (which
 * address was being bound or called) and recognises causes by type and errno, not by stack trace; anything not
 * recognised is reported as-is with a hint to rerun with {@code --verbose}.
 */
final class Diagnosis {

    // errno values (Linux).
    private static final int ENODEV = 19;
    private static final int EADDRINUSE = 98;
    private static final int EADDRNOTAVAIL = 99;
    private static final int ECONNREFUSED = 111;

    private Diagnosis() {
    }

    /** The first line of a throwable's message (or its type when it has none). */
    static String firstLine(Throwable t) {
        if (t == null) {
            return "unknown cause";
        }
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return (nl >= 0 ? m.substring(0, nl) : m).trim();
    }

    /** A server could not listen on {@code address}. */
    static UserError bindFailure(EchoTransport transport, InetSocketAddress address, Throwable cause) {
        Throwable t = unwrap(cause);
        if (t instanceof UserError) {
            return (UserError) t;
        }
        String where = hostPort(address) + " (" + transport.description() + ")";
        int errno = errno(t);
        if (errno == EADDRINUSE || t instanceof BindException && contains(t, "in use")) {
            return new UserError("cannot listen on " + where + ": the port is already in use (another echo or NFS"
                    + " server?): stop it or choose another --port", cause);
        }
        if (transport instanceof RdmaTransport && (errno == ENODEV || errno == EADDRNOTAVAIL)) {
            return new UserError("cannot listen on " + where + ": no RDMA device has the address "
                    + address.getAddress().getHostAddress() + ": use the IP address of the interface an RDMA"
                    + " device is bound to (see `rdma link` and `ip addr`), or 0.0.0.0", cause);
        }
        if (errno == EADDRNOTAVAIL || t instanceof BindException && contains(t, "assign requested address")) {
            return new UserError("cannot listen on " + where + ": " + address.getAddress().getHostAddress()
                    + " is not an address of this host: use one of its addresses, or 0.0.0.0 for all", cause);
        }
        return new UserError("cannot listen on " + where + ": " + firstLine(t), cause);
    }

    /** A client could not connect to {@code address}. */
    static UserError connectFailure(EchoTransport transport, InetSocketAddress address, Throwable cause) {
        Throwable t = unwrap(cause);
        if (t instanceof UserError) {
            return (UserError) t;
        }
        String where = hostPort(address) + " over " + transport.description();
        boolean rdma = transport instanceof RdmaTransport;
        if (rdma && ((RdmaTransport) transport).unreachableOverRdma(address.getAddress())) {
            // RoCE: rdma_resolve_route fails with ENODEV for a loopback destination (seen on Soft-RoCE).
            return new UserError("cannot connect to " + where + ": " + address.getAddress().getHostAddress()
                    + " is a loopback address, which is on no RDMA device (RoCE and Soft-RoCE devices sit on an"
                    + " interface such as eth0 or dummy0): use that interface's address (see `rdma link` and"
                    + " `ip addr`)", cause);
        }
        if (rdma && t instanceof RdmaConnectionRejectedException) {
            return new UserError("the server at " + where + " rejected the RDMA connection (" + firstLine(t)
                    + "): it is not an RPC-over-RDMA server, or it refused our parameters", cause);
        }
        if (t instanceof ConnectTimeoutException) {
            return new UserError("no answer from " + where + " within the timeout: check --address and --port"
                    + " (a firewall may drop the connection), or raise --timeout", cause);
        }
        if (rdma && t instanceof ConnectException) {
            String hint = ((RdmaTransport) transport).inProcess()
                    ? ": the software fabric reaches only servers in this JVM: add --embedded-server, or use an"
                    + " RDMA device (--fabric native) or --transport tcp"
                    : ": start the server (samples/run-echo server --transport rdma) or check --address/--port;"
                    + " the address must be on an RDMA device (127.0.0.1 is not on Soft-RoCE)";
            return new UserError("cannot connect to " + where + " (" + firstLine(t) + ")" + hint, cause);
        }
        if (rdma && RdmaErrors.failedCall(t) != null) {
            return new UserError("cannot connect to " + where + ": " + firstLine(t)
                    + ": use an address reachable through an RDMA device (see `rdma link`)", cause);
        }
        if (errno(t) == ECONNREFUSED || t instanceof ConnectException) {
            return new UserError("nothing is listening at " + where + " (connection refused): start the server"
                    + " (samples/run-echo server) or check --address, --port and --transport", cause);
        }
        return new UserError("cannot connect to " + where + ": " + firstLine(t), cause);
    }

    /** A call to the server at {@code address} failed. */
    static UserError callFailure(InetSocketAddress address, String procedure, Throwable cause) {
        Throwable t = unwrap(cause);
        if (t instanceof UserError) {
            return (UserError) t;
        }
        String who = "the server at " + hostPort(address);
        if (t instanceof RpcReplyException) {
            RpcReply reply = ((RpcReplyException) t).reply();
            String prog = String.format(Locale.ROOT, "0x%08X", EchoProgram.PROGRAM);
            if (reply.replyStat() == ReplyStat.MSG_DENIED) {
                return new UserError(who + " denied the " + procedure + " call (" + reply
                        + "): it is not an echo server that accepts AUTH_NONE", cause);
            }
            AcceptStat stat = reply.acceptStat();
            if (stat == AcceptStat.PROG_UNAVAIL) {
                return new UserError(who + " does not serve the echo program " + prog
                        + " (PROG_UNAVAIL): it is another RPC service; check --port and --address", cause);
            }
            if (stat == AcceptStat.PROG_MISMATCH) {
                return new UserError(who + " serves echo program versions " + reply.mismatchLow() + ".."
                        + reply.mismatchHigh() + ", not " + EchoProgram.VERSION + " (PROG_MISMATCH): update"
                        + " the client or the server", cause);
            }
            if (stat == AcceptStat.PROC_UNAVAIL) {
                return new UserError(who + " has no " + procedure + " procedure in program " + prog
                        + " (PROC_UNAVAIL): it is not this echo server", cause);
            }
            if (stat == AcceptStat.GARBAGE_ARGS) {
                return new UserError(who + " could not decode the " + procedure + " arguments (GARBAGE_ARGS):"
                        + " is --size above its limit (" + EchoProgram.MAX_DATA + " bytes)?", cause);
            }
            return new UserError(who + " failed the " + procedure + " call (" + stat + "): see the server's log",
                    cause);
        }
        if (t instanceof RpcRdmaErrorException) {
            return new UserError(who + " answered " + procedure + " with " + firstLine(t) + " (RFC 8166 §4.5):"
                    + " it does not speak RPC-over-RDMA Version 1 as we do, or rejected our chunks; see its log",
                    cause);
        }
        if (t instanceof RpcTimeoutException) {
            return new UserError("no reply from " + who.substring(4) + " to " + procedure + " within the timeout:"
                    + " is it an ONC RPC server (over the same transport)? Raise --timeout for a slow link", cause);
        }
        if (t instanceof RpcConnectionClosedException) {
            return new UserError(who + " closed the connection during " + procedure + ": it is not an ONC RPC"
                    + " server on this transport (TCP vs RPC-over-RDMA), or it failed (see its log)", cause);
        }
        if (t instanceof XdrException) {
            return new UserError("the reply of " + who + " to " + procedure + " is not an echo result ("
                    + firstLine(t) + "): it is not this echo program", cause);
        }
        return new UserError(procedure + " to " + who + " failed: " + firstLine(t), cause);
    }

    /** The cause inside completion/execution wrappers. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The errno somewhere in the cause chain, positive; 0 if none is known. */
    static int errno(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            int errno = RdmaErrors.errno(c);
            if (errno != 0) {
                return errno;
            }
            if (c instanceof Errors.NativeIoException) {
                return Math.abs(((Errors.NativeIoException) c).expectedErr());
            }
            if (contains(c, "Address already in use")) {
                return EADDRINUSE;
            }
            if (contains(c, "Connection refused")) {
                return ECONNREFUSED;
            }
            if (contains(c, "Cannot assign requested address")) {
                return EADDRNOTAVAIL;
            }
        }
        return 0;
    }

    private static boolean contains(Throwable t, String text) {
        String m = t.getMessage();
        return m != null && m.contains(text);
    }

    static String hostPort(InetSocketAddress a) {
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
