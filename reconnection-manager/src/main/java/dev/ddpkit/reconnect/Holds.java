package dev.ddpkit.reconnect;

/**
 * What holds a {@link ReconnectionManager}'s dials back: a lost network, a suspended app, and a
 * server's appointment still to come (which a network coming back or an app resuming does not
 * bring forward). Not thread-safe: used under the manager's lock.
 */
final class Holds {
  private boolean networkLost;
  private boolean suspended;
  private boolean appointment;
  private long appointmentAt; // ticker nanos, if appointment

  /** Whether dials are held: the network is lost or the app suspended. */
  boolean held() {
    return networkLost || suspended;
  }

  boolean networkLost() {
    return networkLost;
  }

  boolean suspended() {
    return suspended;
  }

  /** Sets the network flag; returns whether it changed. */
  boolean networkLost(boolean lost) {
    boolean changed = networkLost != lost;
    networkLost = lost;
    return changed;
  }

  /** Sets the suspended flag; returns whether it changed. */
  boolean suspended(boolean now) {
    boolean changed = suspended != now;
    suspended = now;
    return changed;
  }

  /** The wait (or hold) now is for the server's appointment at {@code at} (ticker nanos). */
  void appointment(long at) {
    appointmentAt = at;
    appointment = true;
  }

  /** No appointment any more: a dial was made, or the manager starts afresh. */
  void noAppointment() {
    appointment = false;
  }

  /** The ticker time of the appointment; meaningful while {@link #appointmentLeft} is positive. */
  long appointmentAt() {
    return appointmentAt;
  }

  /** Nanos until the appointment at {@code now}, or 0 if none is still to come. */
  long appointmentLeft(long now) {
    return appointment && now - appointmentAt < 0 ? appointmentAt - now : 0;
  }
}
