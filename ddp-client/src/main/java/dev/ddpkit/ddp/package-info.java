/**
 * A DDP client for Meteor and Rocket.Chat-style servers: {@link dev.ddpkit.ddp.DdpClient} with its
 * builder, method calls, subscriptions, local collections, event streams, and reconnection through
 * a {@link dev.ddpkit.reconnect.ReconnectionManager} with a resynchronisation after every reconnect.
 */
package dev.ddpkit.ddp;
