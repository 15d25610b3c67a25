/**
 * The transport SPI under the DDP client: {@link dev.ddpkit.ddp.transport.TransportFactory} opens
 * a {@link dev.ddpkit.ddp.transport.Transport} per connection attempt and reports its events to a
 * {@link dev.ddpkit.ddp.transport.TransportListener}. {@link
 * dev.ddpkit.ddp.transport.WebSocketTransportFactory} is the default, on Java-WebSocket.
 */
package dev.ddpkit.ddp.transport;
