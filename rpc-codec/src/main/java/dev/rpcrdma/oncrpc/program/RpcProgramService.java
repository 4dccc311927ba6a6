package dev.rpcrdma.oncrpc.program;

import dev.rpcrdma.oncrpc.message.AcceptStat;
import dev.rpcrdma.oncrpc.server.RpcCallContext;
import dev.rpcrdma.oncrpc.server.RpcProcedure;
import dev.rpcrdma.oncrpc.server.RpcProgramRegistry;
import dev.rpcrdma.oncrpc.xdr.XdrPayload;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import io.netty.util.internal.ObjectUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * The server side of an {@link RpcProgram}: one {@link RpcHandler} (or {@link AsyncRpcHandler}, answering through
 * a stage) per declared procedure, made into {@link RpcProcedure}s and registered into an
 * {@link RpcProgramRegistry} (NULL, procedure 0, answered empty unless declared). Arguments are decoded on the connection's event loop (the reader is valid only there); a procedure
 * declared {@link RpcProcedureSpec#blocking() blocking} then runs on the executor given to the builder, and its
 * reply is written on the connection's loop as any {@link RpcCallContext} reply is. Immutable and thread-safe.
 */
public final class RpcProgramService {

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcProgramService.class);

    private final RpcProgram program;
    private final IntObjectHashMap<RpcProcedure> procedures;

    private RpcProgramService(RpcProgram program, IntObjectHashMap<RpcProcedure> procedures) {
        this.program = program;
        this.procedures = procedures;
    }

    /** The program served. */
    public RpcProgram program() {
        return program;
    }

    /** Registers every procedure (and NULL) into {@code registry}; returns it. */
    public RpcProgramRegistry registerInto(RpcProgramRegistry registry) {
        ObjectUtil.checkNotNull(registry, "registry");
        if (!procedures.containsKey(0)) {
            registry.registerNull(program.program(), program.version());
        }
        for (IntObjectMap.PrimitiveEntry<RpcProcedure> e : procedures.entries()) {
            registry.register(program.program(), program.version(), e.key(), e.value());
        }
        return registry;
    }

    /** Removes this program version from {@code registry}. */
    public void unregisterFrom(RpcProgramRegistry registry) {
        ObjectUtil.checkNotNull(registry, "registry").unregister(program.program(), program.version());
    }

    /**
     * Builds an {@link RpcProgramService}: every declared procedure needs an implementation, and an executor is
     * needed when one of them is blocking. Not thread-safe.
     */
    public static final class Builder {
        private final RpcProgram program;
        /** An {@link RpcHandler} or an {@link AsyncRpcHandler} per procedure number. */
        private final IntObjectHashMap<Object> handlers = new IntObjectHashMap<>();
        private Executor executor;

        Builder(RpcProgram program) {
            this.program = program;
        }

        /** Implements {@code procedure} with {@code handler} (on the loop, or the executor if it is blocking). */
        public <A, R> Builder implement(RpcProcedureSpec<A, R> procedure, RpcHandler<A, R> handler) {
            program.check(procedure);
            handlers.put(procedure.number(), ObjectUtil.checkNotNull(handler, "handler"));
            return this;
        }

        /**
         * Implements {@code procedure} with {@code handler}, which answers through a stage (started on the loop, or on
         * the executor if the procedure is blocking).
         */
        public <A, R> Builder implementAsync(RpcProcedureSpec<A, R> procedure, AsyncRpcHandler<A, R> handler) {
            program.check(procedure);
            handlers.put(procedure.number(), ObjectUtil.checkNotNull(handler, "handler"));
            return this;
        }

        /** The executor blocking procedures run on (the caller owns and shuts it down). */
        public Builder executor(Executor executor) {
            this.executor = ObjectUtil.checkNotNull(executor, "executor");
            return this;
        }

        /** The service. */
        public RpcProgramService build() {
            IntObjectHashMap<RpcProcedure> procedures = new IntObjectHashMap<>();
            for (RpcProcedureSpec<?, ?> spec : program.procedures()) {
                Object handler = handlers.get(spec.number());
                if (handler == null) {
                    throw new IllegalStateException(program + " procedure " + spec + " has no implementation");
                }
                if (spec.isBlocking() && executor == null) {
                    throw new IllegalStateException(program + " procedure " + spec
                            + " is blocking: give the builder an executor");
                }
                procedures.put(spec.number(), procedure(spec, handler, spec.isBlocking() ? executor : null));
            }
            return new RpcProgramService(program, procedures);
        }
    }

    /** The procedure running {@code handler} (RpcHandler or AsyncRpcHandler) on the loop or {@code executor}. */
    @SuppressWarnings("unchecked")
    static <A, R> RpcProcedure procedure(RpcProcedureSpec<A, R> spec, Object handler, Executor executor) {
        BiConsumer<RpcCallContext, A> run = handler instanceof AsyncRpcHandler
                ? (call, args) -> start(spec, (AsyncRpcHandler<A, R>) handler, call, args)
                : (call, args) -> run(spec, (RpcHandler<A, R>) handler, call, args);
        if (executor == null) {
            return (call, in) -> run.accept(call, spec.arguments().read(in));
        }
        return (call, in) -> {
            A args = spec.arguments().read(in);
            try {
                executor.execute(() -> run.accept(call, args));
            } catch (RejectedExecutionException e) {
                logger.warn("{} {}: executor refused the call", call.channel(), spec, e);
                call.replyError(AcceptStat.SYSTEM_ERR);
            }
        };
    }

    /** Starts {@code handler}; answers when its stage completes. */
    static <A, R> void start(RpcProcedureSpec<A, R> spec, AsyncRpcHandler<A, R> handler, RpcCallContext call,
                             A args) {
        CompletionStage<R> stage;
        try {
            stage = handler.handle(call, args);
        } catch (Exception e) {
            logger.warn("{} {} failed", call.channel(), spec, e);
            call.replyError(AcceptStat.SYSTEM_ERR);
            return;
        }
        if (stage == null) {
            logger.warn("{} {} returned no stage", call.channel(), spec);
            call.replyError(AcceptStat.SYSTEM_ERR);
            return;
        }
        stage.whenComplete((result, failure) -> {
            if (failure != null) {
                logger.warn("{} {} failed", call.channel(), spec, failure);
                call.replyError(AcceptStat.SYSTEM_ERR);
            } else {
                answer(spec, call, result);
            }
        });
    }

    /** Runs {@code handler} and answers: results, or SYSTEM_ERR if it (or the results' encoding) failed. */
    static <A, R> void run(RpcProcedureSpec<A, R> spec, RpcHandler<A, R> handler, RpcCallContext call, A args) {
        R result;
        try {
            result = handler.handle(call, args);
        } catch (Exception e) {
            logger.warn("{} {} failed", call.channel(), spec, e);
            call.replyError(AcceptStat.SYSTEM_ERR);
            return;
        }
        answer(spec, call, result);
    }

    /** Answers {@code result}, or SYSTEM_ERR if it does not encode. */
    private static <R> void answer(RpcProcedureSpec<?, R> spec, RpcCallContext call, R result) {
        XdrPayload results = call.newPayload();
        try {
            spec.results().write(results, result);
        } catch (Exception e) {
            results.release();
            logger.warn("{} {}: results do not encode", call.channel(), spec, e);
            call.replyError(AcceptStat.SYSTEM_ERR);
            return;
        }
        call.replySuccess(results, call.voidPromise()); // nothing waits on the write: no future per call
    }
}
