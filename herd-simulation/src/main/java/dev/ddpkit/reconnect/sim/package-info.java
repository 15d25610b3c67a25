/**
 * The herd simulation: what happens when every client of a server loses its connection at once
 * and reconnects with a given backoff policy.
 *
 * <p>{@link dev.ddpkit.reconnect.sim.HerdSimulation} runs N clients, each deciding as a {@link
 * dev.ddpkit.reconnect.ReconnectionManager} with the same policy does (its state, counter and
 * timers kept in primitive arrays, its events in a calendar queue by millisecond: virtual time, no
 * threads, no sleeping, a million clients in seconds; a test runs small herds through real
 * managers too and compares), against a model server: down for D after the drop
 * (dials fail with 1006), then admitting at most C connections per second through the same
 * {@link dev.ddpkit.reconnect.admission.Admission} a server uses, its token bucket empty when the
 * server comes back (1013 for the rest, optionally with a {@code retry-after} appointment: the next
 * free slot, reserved for the client). The last client cannot be back before {@code D + N/C}: that is the
 * physical limit every report prints beside the figures. {@link
 * dev.ddpkit.reconnect.sim.HerdReport} renders results as text, JSON and SVG; {@link
 * dev.ddpkit.reconnect.sim.HerdCommand} is the {@code herd} command line.
 *
 * <p>A planned restart ({@code --planned}) closes every connection with 1012 and its own
 * appointment instead of cutting it. {@link dev.ddpkit.reconnect.sim.HerdSweep} ({@code --sweep})
 * runs the presets over a grid of base and cap and keeps the Pareto front of time to all back,
 * peak arrivals per C and dials per client. {@link dev.ddpkit.reconnect.sim.HerdFlags} parses the
 * words {@code herd} and {@code herd --real} share ({@code --hints [on|off|both]}, {@code
 * --planned}), so that they mean the same in both.
 */
package dev.ddpkit.reconnect.sim;
