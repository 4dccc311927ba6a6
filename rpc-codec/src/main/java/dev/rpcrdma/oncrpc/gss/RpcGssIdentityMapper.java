package dev.rpcrdma.oncrpc.gss;

/**
 * Maps an authenticated principal to the caller identity services see ({@code RpcCallContext.identity()}), once
 * per context when it is established: e.g. {@code alice@EXAMPLE.ORG} to a local uid and gids. The default,
 * {@link #PRINCIPAL_NAME}, is the principal name itself. A mapper that returns null or throws refuses the
 * context (the client gets the GSS failure in its INIT result). Runs on an event loop: no blocking lookups.
 */
@FunctionalInterface
public interface RpcGssIdentityMapper {

    /** The principal's name as the identity. */
    RpcGssIdentityMapper PRINCIPAL_NAME = principal -> principal;

    /** The identity of {@code principal} (the name as the mechanism shows it, e.g. {@code alice@EXAMPLE.ORG}). */
    Object identity(String principal);
}
