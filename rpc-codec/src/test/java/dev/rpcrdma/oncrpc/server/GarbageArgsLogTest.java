package dev.rpcrdma.oncrpc.server;

import dev.rpcrdma.oncrpc.message.OpaqueAuth;
import dev.rpcrdma.oncrpc.message.RpcCall;
import dev.rpcrdma.oncrpc.xdr.XdrException;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.internal.logging.InternalLogger;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Calls answered GARBAGE_ARGS are logged naming the procedure, the limit and the size, at most once per interval. */
class GarbageArgsLogTest {

    @Test
    void namesTheProcedureTheLimitAndTheSizeAtMostOncePerInterval() throws Exception {
        List<String> warnings = new ArrayList<>();
        InternalLogger logger = (InternalLogger) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {InternalLogger.class}, (proxy, method, args) -> {
                    if (method.getName().equals("warn")) {
                        Object[] rest = (Object[]) args[1];
                        String text = (String) args[0];
                        for (Object a : rest) {
                            text = text.replaceFirst("\\{}", java.util.regex.Matcher.quoteReplacement(
                                    String.valueOf(a)));
                        }
                        warnings.add(text);
                    }
                    return method.getReturnType() == boolean.class ? false : null;
                });
        GarbageArgsLog log = new GarbageArgsLog(logger, 200_000_000L);
        EmbeddedChannel ch = new EmbeddedChannel();
        RpcCall call = new RpcCall(7, 0x20000123, 1, 2, OpaqueAuth.NONE);
        XdrException tooLong = new XdrException("opaque<200000> declares length 300000, over its bound 200000");
        for (int i = 0; i < 5; i++) {
            log.warn(ch, call, tooLong);
        }
        assertEquals(1, warnings.size(), warnings.toString());
        String first = warnings.get(0);
        assertTrue(first.contains("program 0x20000123 version 1 procedure 2")
                && first.contains("over its bound 200000") && first.contains("300000"), first);
        Thread.sleep(250);
        log.warn(ch, call, tooLong);
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(1).contains("(and 4 more such calls since the last warning)"), warnings.get(1));
        ch.finishAndReleaseAll();
    }
}
