/**
 * An embedded Rocket.Chat-compatible DDP server: {@link dev.ddpkit.chat.server.ChatServer} (the
 * facade a test suite or {@code ddpkit.jar serve} starts), {@link
 * dev.ddpkit.chat.server.ChatServerBuilder} (its settings), {@link
 * dev.ddpkit.chat.server.ServerFaults} (the faults a test installs) and the snapshots it reports.
 *
 * <h2>Concurrency model</h2>
 *
 * <p><b>Events run on the thread they arrive on, and every object that two threads share
 * guards its own state</b>: Java-WebSocket's workers handle a connection's frames one at a time
 * (its selector a first read that is the whole upgrade or a lone {@code connect}: see {@link
 * SelectorDecodes}),
 * the store's writer thread sends what became durable, and the server's one {@link
 * dev.ddpkit.reconnect.Scheduler} runs every timer; what they share is a concurrent collection,
 * an atomic, a {@code volatile} field for a single value, or state behind its owner's own
 * monitor ({@code synchronized}; no {@code java.util.concurrent} lock, no other timer thread).
 *
 * <p>What follows from it:
 *
 * <ul>
 *   <li>A connection's {@code Session} keeps its single values in volatile fields (written
 *       mostly by its worker, read by the heartbeat and the store's writer); the frames it writes
 *       out (count, held queue, forward) are under its {@code out} monitor, its method ids under
 *       its {@code MethodBook}'s.
 *   <li>A monitor is held only for its owner's own state, with two nestings, always in this
 *       order: the subscriptions' monitor, then a session's {@code out}, then the socket's
 *       (a subscription's {@code ready} and the broadcasts are ordered by the first, so a
 *       subscriber sees every event after its ready and none before). A {@code Hold} calls nothing
 *       under its monitor, since Java-WebSocket calls {@code onClose} under the socket's.
 *   <li>The protocol's times come from the configured {@link dev.ddpkit.reconnect.Ticker} and
 *       {@link java.time.Clock}, its timers from the configured scheduler (the server's own timer
 *       thread by default): a test that passes one {@link dev.ddpkit.reconnect.VirtualScheduler}
 *       runs heartbeats, holds, held sessions and token expiry on virtual time. Only the socket
 *       write kick and a drain's batches stay on the server's own thread, since they pace real
 *       sockets and a caller blocked in {@code stop()}.
 * </ul>
 */
package dev.ddpkit.chat.server;
