package dev.ddpkit.reconnect.sim;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Raises {@code dev.ddpkit.reconnect} to INFO for a test class and restores it after. Without a
 * logback configuration logback logs DEBUG, and a herd run makes millions of state changes that
 * ReconnectionManager logs at DEBUG: the run would crawl and fill the surefire report.
 */
final class QuietReconnectLogs implements BeforeAllCallback, AfterAllCallback {
  private Level previous;

  @Override
  public void beforeAll(ExtensionContext context) {
    Logger logger = logger();
    previous = logger.getLevel();
    if (!logger.isEnabledFor(Level.INFO) || logger.isDebugEnabled()) {
      logger.setLevel(Level.INFO);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    logger().setLevel(previous);
  }

  private static Logger logger() {
    return (Logger) LoggerFactory.getLogger("dev.ddpkit.reconnect");
  }
}
