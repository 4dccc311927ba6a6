/** rpcbind / portmapper (RFC 1833) client: lookups, listing and registration of services. */
package dev.rpcrdma.oncrpc.rpcbind;
