/**
 * Support for tests and load tools that talk to a server below any WebSocket library: {@link
 * dev.ddpkit.chat.server.testing.RawPeer}, a WebSocket client on a plain socket that writes
 * whatever bytes it is given (unmasked frames, fragments that never end, lying headers) and
 * reads the server's frames one at a time; and {@link
 * dev.ddpkit.chat.server.testing.WebSocketWire}, the bytes it speaks (opcodes, frames and headers
 * encoded exactly as asked, a frame read from a stream, the upgrade request), for a test's own
 * fake server or client.
 *
 * <p>It lives in the embedded server's artifact, beside the server it is meant to probe, so that
 * the server's own tests, chat-app's security tests and its abuse command share one copy.
 */
package dev.ddpkit.chat.server.testing;
