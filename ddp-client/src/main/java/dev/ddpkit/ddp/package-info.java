/**
 * A DDP client for Meteor and Rocket.Chat-style servers: {@link dev.ddpkit.ddp.DdpClient} with its
 * builder, method calls, subscriptions, local collections, event streams, and reconnection through
 * a {@link dev.ddpkit.reconnect.ReconnectionManager} with a resynchronisation after every reconnect.
 *
 * <p><b>One source of status.</b> The status a user sees ({@link dev.ddpkit.ddp.DdpStatus}, from
 * {@code DdpClient.status()} and the status listeners) has one producer, the package-private
 * {@code ClientStatus}, which computes it on the client's event loop from two inputs that arrive
 * there in order: the connection's state ({@code EngineState}, changed only by {@code
 * ClientEngine.transitionTo} along its transition table, an illegal move throwing) and the
 * reconnection manager's changes, which the manager hands to that loop as they happen ({@code
 * ReconnectionManager.Builder.executor}). "Closed" is one fact, the event loop's: {@code close()}
 * queues the shutdown as the loop's last task and the loop takes no other.
 *
 * <p><b>One time source, one source of randomness.</b> Every timer, idle time and time stamp comes
 * from the builder's {@link dev.ddpkit.reconnect.Scheduler} ({@code nanoTime()}, {@code
 * wallTime()}); every jitter and subscription id from its {@link java.util.Random}.
 */
package dev.ddpkit.ddp;
