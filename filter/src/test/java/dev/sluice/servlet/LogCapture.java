package dev.sluice.servlet;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Every log record written while it is open, as text: a {@code java.util.logging} handler on the root logger.
 * {@code System.Logger} (Sluice's own logging) maps to {@code java.util.logging} here, as no other
 * {@code LoggerFinder} is installed; {@link #start()} proves it with a probe record. Hazelcast logs to it with
 * {@code hazelcast.logging.type=jdk}, and Jetty through slf4j where a JDK binding is present (the demo). Sluice's
 * loggers are opened to every level, Hazelcast's to {@code INFO} (as operators run it); other loggers keep their
 * levels. Public for other modules' tests (through this module's test-jar). Thread-safe.
 */
public final class LogCapture implements AutoCloseable {

    private static final Map<String, Level> OPENED = Map.of("dev.sluice", Level.ALL, "com.hazelcast", Level.INFO);
    private static final SimpleFormatter FORMAT = new SimpleFormatter();

    private final Queue<String> records = new ConcurrentLinkedQueue<>();
    /** The opened loggers and their levels before, held: {@code java.util.logging} keeps loggers weakly. */
    private final Map<Logger, Level> previousLevels = new LinkedHashMap<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(FORMAT.format(record));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture() {
        handler.setLevel(Level.ALL);
    }

    /** Starts capturing; throws when {@code System.Logger} output does not reach the capture. */
    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        OPENED.forEach((name, level) -> {
            Logger logger = Logger.getLogger(name);
            capture.previousLevels.put(logger, logger.getLevel());
            logger.setLevel(level);
        });
        Logger.getLogger("").addHandler(capture.handler);
        String probe = "log capture probe " + UUID.randomUUID();
        System.getLogger("dev.sluice.probe").log(System.Logger.Level.DEBUG, probe);
        if (capture.records.stream().noneMatch(record -> record.contains(probe))) {
            capture.close();
            throw new IllegalStateException("System.Logger does not write to java.util.logging here: "
                    + System.LoggerFinder.getLoggerFinder().getClass().getName());
        }
        return capture;
    }

    /** The records so far, formatted with their logger, level, message and any exception's full stack trace. */
    public List<String> records() {
        return new ArrayList<>(records);
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(handler);
        previousLevels.forEach(Logger::setLevel);
    }
}
