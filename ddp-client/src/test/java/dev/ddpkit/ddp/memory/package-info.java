/** An in-memory transport for testing DDP clients frame by frame, without sockets. */
package dev.ddpkit.ddp.memory;
