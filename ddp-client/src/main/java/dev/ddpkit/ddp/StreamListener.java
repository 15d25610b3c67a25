package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Receives the data messages of a collection used as an event stream, such as Rocket.Chat's
 * {@code stream-room-messages} (each event a {@code changed} with {@code fields.eventName} and
 * {@code fields.args}). Stream events are neither stored nor held back during a resync: they are
 * delivered at once, in arrival order, on the client's event loop.
 */
@FunctionalInterface
public interface StreamListener {
  /**
   * Called for each {@code added} or {@code changed} message of the stream collection.
   *
   * @param collection the collection name
   * @param id the document id the server used
   * @param fields the fields of the message: this listener's own (no other listener sees this
   *     object), so it may keep or change them
   */
  void onEvent(String collection, String id, ObjectNode fields);
}
