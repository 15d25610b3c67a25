package dev.ddpkit.chat.security;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Captures every log event of the JVM while open: an appender on the root logger, with the root
 * and every logger with a level of its own set to {@code level}, and the console muted. {@link #close()} puts every level back and removes
 * the appender, so that other tests are not made noisy.
 */
final class LogCapture implements AutoCloseable {
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger root;
  private final Map<Logger, Level> before = new HashMap<>();
  private final List<Appender<ILoggingEvent>> muted = new ArrayList<>();

  /**
   * Starts capturing at {@code level}, on the root logger and on every logger already configured
   * with a level of its own (a configured {@code WARN} on a child would otherwise hide events).
   */
  LogCapture(Level level) {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    for (Logger l : ctx.getLoggerList()) {
      if (l.getLevel() != null) {
        before.put(l, l.getLevel());
        l.setLevel(level);
      }
    }
    before.putIfAbsent(root, root.getLevel());
    root.setLevel(level);
    // The console would print every captured line: mute it while capturing.
    root.iteratorForAppenders().forEachRemaining(muted::add);
    muted.forEach(root::detachAppender);
    appender.setContext(ctx);
    appender.setName("capture-all");
    appender.start();
    root.addAppender(appender);
  }

  /** The events so far (a copy). */
  List<ILoggingEvent> events() {
    synchronized (appender) { // AppenderBase appends under the appender's own lock
      return List.copyOf(appender.list);
    }
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
    before.forEach(Logger::setLevel);
    muted.forEach(root::addAppender);
  }
}
