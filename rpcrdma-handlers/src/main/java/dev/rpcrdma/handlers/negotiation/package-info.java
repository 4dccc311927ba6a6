/** RFC 8797 CM private data and the inline thresholds it negotiates (RFC 8797 §4.2). */
package dev.rpcrdma.handlers.negotiation;
