/**
 * Benchmarks of ddpkit: JMH micro-benchmarks and loopback runs that print their figures. They are
 * built by the reactor but never run by {@code mvn verify}; see BENCHMARKS.md for the commands.
 */
package dev.ddpkit.bench;
