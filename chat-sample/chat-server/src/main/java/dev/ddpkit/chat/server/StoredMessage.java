package dev.ddpkit.chat.server;

/**
 * A message as the server holds it, for checking that clients converged to it.
 *
 * @param id the message id
 * @param user the author's user name
 * @param text the current text
 * @param ts the server time stamp, epoch ms
 * @param edited whether it was edited
 */
public record StoredMessage(String id, String user, String text, long ts, boolean edited) {}
