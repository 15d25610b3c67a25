/**
 * The DDP wire format: {@link dev.ddpkit.ddp.protocol.DdpMessages} parses server frames into typed
 * {@link dev.ddpkit.ddp.protocol.DdpMessage}s (every field's type checked, a {@link
 * dev.ddpkit.ddp.protocol.DdpProtocolException} otherwise) and {@link
 * dev.ddpkit.ddp.protocol.ClientMessages} builds the frames the client sends.
 */
package dev.ddpkit.ddp.protocol;
