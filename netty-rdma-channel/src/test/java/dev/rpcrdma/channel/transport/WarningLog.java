package dev.rpcrdma.channel.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records every WARNING or SEVERE record logged through java.util.logging (Netty's logger when no SLF4J/Log4j is on
 * the class path, as here) while it is open: the root logger's handler sees the transport's and Netty's loggers.
 */
final class WarningLog implements AutoCloseable {
    private final Logger root = Logger.getLogger("");
    private final List<String> records = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                synchronized (records) {
                    records.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage()
                            + (r.getThrown() != null ? " — " + r.getThrown() : ""));
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private WarningLog() {
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
    }

    static WarningLog start() {
        return new WarningLog();
    }

    /** What was recorded so far (a copy). */
    List<String> records() {
        synchronized (records) {
            return new ArrayList<>(records);
        }
    }

    @Override
    public void close() {
        root.removeHandler(handler);
    }
}
