package dev.rpcrdma.channel;

import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

/** Destroying a verbs object where a failure is logged, not thrown (teardown goes on with what it can destroy). */
final class VerbsObjects {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(VerbsObjects.class);

    private VerbsObjects() {
    }

    /** Destroys {@code c}; false (logged, naming {@code what}) if that failed; true when there was nothing to destroy. */
    static boolean destroy(AutoCloseable c, String what) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                logger.warn("failed to destroy the {}", what, e);
                return false;
            }
        }
        return true;
    }
}
