/** Credit accounting (RFC 8166 §3.3.1) for requesters and responders. */
package dev.rpcrdma.handlers.credits;
