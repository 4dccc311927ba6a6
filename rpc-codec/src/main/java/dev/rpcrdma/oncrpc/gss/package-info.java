/**
 * RPCSEC_GSS version 1 (RFC 2203) on the JDK's GSS-API with Kerberos V5 (krb5, krb5i, krb5p), over any transport:
 * {@link dev.rpcrdma.oncrpc.gss.RpcGssAuthenticator} for servers (given to
 * {@code RpcDispatcher.withAuthenticator}), {@link dev.rpcrdma.oncrpc.gss.RpcGssClientContext} for clients (its
 * {@code callOptions()}), {@link dev.rpcrdma.oncrpc.gss.Krb5Credentials} for keytab logins and target names.
 */
package dev.rpcrdma.oncrpc.gss;
