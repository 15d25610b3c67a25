package dev.ddpkit.ddp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Observes one local collection. Called on the client's event loop. After a reconnect the store is
 * reset and refilled in one step and listeners see only the difference, never a flicker.
 */
public interface CollectionListener {
  /** A document appeared, with all its fields. */
  default void onAdded(String collection, String id, ObjectNode fields) {}

  /** Fields of a document changed ({@code fields}) or were cleared ({@code cleared}). */
  default void onChanged(String collection, String id, ObjectNode fields, List<String> cleared) {}

  /** A document disappeared. */
  default void onRemoved(String collection, String id) {}
}
