/**
 * Typed ONC RPC programs: a program version's procedures declared once ({@link dev.rpcrdma.oncrpc.program.RpcProgram},
 * {@link dev.rpcrdma.oncrpc.program.RpcProcedureSpec} with {@link dev.rpcrdma.oncrpc.program.XdrCodec}s and a
 * maximum reply size), served through {@link dev.rpcrdma.oncrpc.program.RpcProgramService} (blocking procedures on
 * an executor) and called asynchronously or blocking, over any transport; optional rpcbind registration.
 */
package dev.rpcrdma.oncrpc.program;
