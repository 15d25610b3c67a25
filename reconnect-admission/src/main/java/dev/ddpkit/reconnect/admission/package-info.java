/**
 * The server half of the {@code retry-after} hint protocol: {@link
 * dev.ddpkit.reconnect.admission.Admission} decides, for each new connection, whether the server
 * takes it now, and if not, hands it an appointment and keeps it.
 *
 * <p>A client's {@code ReconnectionManager} (reconnection-manager) treats a close reason such as
 * {@code retry-after=350} as an appointment: it dials again at that time (plus a small spread),
 * whatever its own backoff curve says. That is only worth something if the server keeps the
 * appointment: here a dial past the server's rate is given the next free slot of a token bucket
 * at C per second, and that slot is reserved until the client comes back for it. A herd turned
 * away at once then comes back one slot after another, at exactly the rate the server admits, and
 * the last client is back at {@code D + N/C}, the physical limit, with about two dials each. For a
 * planned restart, {@link dev.ddpkit.reconnect.admission.Admission#restartAppointment} gives every
 * connection closed with 1012 its own slot after the expected downtime: one dial each.
 *
 * <p>It also keeps the server's peak: never more than C connections start in any one second.
 * Clients late in their slots, or the depth of a bucket full after an idle spell, would let more
 * in; the one too many is admitted but held (the verdict's {@code holdMillis}), and served when
 * the oldest start of the last second is a second old.
 *
 * <p>No network and no protocol here: the server calls {@code admit()} when a socket opens,
 * closes it with 1013 and the verdict's reason if it is rejected, and serves it after the
 * verdict's hold (keeping what it sends meanwhile) if it is held. The herd simulation ({@code
 * dev.ddpkit.reconnect.sim}, module herd-simulation) and the sample's {@code ChatServer} use the same class, so the
 * simulation predicts the server.
 */
package dev.ddpkit.reconnect.admission;
