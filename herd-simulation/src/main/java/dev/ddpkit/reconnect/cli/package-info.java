/**
 * Command-line support shared by the project's commands: {@link
 * dev.ddpkit.reconnect.cli.CommandLine} reads {@code --name value} options for {@code herd} here
 * and for chat-sample's {@code serve}, {@code chat}, {@code demo}, {@code herd --real} and the
 * footprint benchmark. It lives in this module because it is the lowest one that has a command.
 */
package dev.ddpkit.reconnect.cli;
