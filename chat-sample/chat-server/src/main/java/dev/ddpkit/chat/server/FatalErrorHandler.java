package dev.ddpkit.chat.server;

import java.io.PrintStream;

/**
 * What a {@link ChatServer} does once one of its threads meets an {@link Error} such as {@code
 * OutOfMemoryError}: after that it cannot be trusted to serve anyone (threads may have died with
 * half their work done), and a server that stays up serving nobody is worse than one that is gone,
 * since neither its clients nor a supervisor can tell. Called once per server.
 */
@FunctionalInterface
public interface FatalErrorHandler {
  /** The embedded default: kills the server (every socket dropped, nothing more written). */
  FatalErrorHandler KILL_SERVER = (server, thread, error) -> {
    Thread killer = new Thread(server::kill, thread + "-fatal-kill");
    killer.setDaemon(true);
    killer.start(); // kill() joins the server's threads, so it cannot run on one of them
  };

  /**
   * Called on the thread that met {@code error}, or on the one that saw it.
   *
   * @param server the server whose thread met the error
   * @param thread the name of that thread
   * @param error the error
   */
  void onFatalError(ChatServer server, String thread, Throwable error);

  /**
   * Ends the whole process at once with {@code status}, after one line on {@code err}: what
   * {@code serve} does, so that a supervisor restarts it. {@link Runtime#halt} runs no shutdown
   * hook: a graceful drain needs threads and memory the error may have taken. What was
   * acknowledged is in the journal already, which a restart reads back (a torn last record
   * included).
   */
  static FatalErrorHandler haltProcess(int status, PrintStream err) {
    return new ProcessHalt(status, err, Runtime.getRuntime()::halt);
  }
}
