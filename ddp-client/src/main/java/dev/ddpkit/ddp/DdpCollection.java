package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ddpkit.reconnect.Cancellable;
import java.util.Map;
import java.util.Optional;

/**
 * The client's local copy of one server collection, filled by subscriptions. After the client
 * closed it keeps its last content (no longer updated).
 */
public interface DdpCollection {
  /** Returns the collection name. */
  String name();

  /** Returns a copy of the document's fields, if present. */
  Optional<ObjectNode> get(String id);

  /** Returns an immutable copy of every document, by id. */
  Map<String, ObjectNode> snapshot();

  /** Returns the number of documents. */
  int size();

  /** Adds a listener; returns a handle that removes it. */
  Cancellable addListener(CollectionListener listener);
}
