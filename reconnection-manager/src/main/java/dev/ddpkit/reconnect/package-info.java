/**
 * Reconnection policy and state machine, with no network code of its own: {@link
 * dev.ddpkit.reconnect.Backoff} computes delays as a pure function of the attempt and a random
 * sample (RFC, full jitter, proportional, fixed and Meteor presets); {@link
 * dev.ddpkit.reconnect.ClosePolicy} classifies close codes into retry, slow retry, credential
 * refresh or stop (WebSocket and DDP profiles) and reads a server's {@code retry-after} hint, an
 * appointment the manager keeps; {@link
 * dev.ddpkit.reconnect.ReconnectionManager} takes the socket owner's reports ({@code opened},
 * {@code closed}, network and app lifecycle) and calls a {@link dev.ddpkit.reconnect.Connector} when
 * it is time to dial, keeping at most one timer, resetting its counter only after a stable
 * connection, and telling {@link dev.ddpkit.reconnect.ReconnectListener}s every {@link
 * dev.ddpkit.reconnect.ReconnectStatus} outside its lock. Time comes from an injected {@link
 * dev.ddpkit.reconnect.Ticker} and {@link dev.ddpkit.reconnect.Scheduler}: one shared daemon thread
 * ({@code ddpkit-reconnect}) in production, a {@link dev.ddpkit.reconnect.VirtualScheduler} in
 * tests and simulations, where thousands of managers run on virtual time with no threads.
 */
package dev.ddpkit.reconnect;
