package dev.ddpkit.ddp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Jackson's default node factory, except that an object's children are a {@link SmallObjectMap}
 * instead of a {@code LinkedHashMap}, and an array starts small: the same nodes, the same order,
 * equality and JSON, in fewer bytes for the small objects and arrays of a DDP frame. {@link DataMessageReader}
 * builds a data message's {@code fields} with it when the mapper's factory is Jackson's default;
 * a factory of the user's own is used as given.
 */
final class CompactNodeFactory extends JsonNodeFactory {
  private static final long serialVersionUID = 1L;

  /** The one instance: the factory holds no state. */
  static final CompactNodeFactory INSTANCE = new CompactNodeFactory();

  private CompactNodeFactory() {
    super(false); // as JsonNodeFactory.instance: decimals not normalised
  }

  @Override
  public ObjectNode objectNode() {
    return new ObjectNode(this, new SmallObjectMap<JsonNode>());
  }

  /** An array that starts with room for two items, not ten: a room event's {@code args} has one. */
  @Override
  public ArrayNode arrayNode() {
    return new ArrayNode(this, 2);
  }

  /** Whether {@code factory} is Jackson's default one, which this factory may stand in for. */
  static boolean replaces(JsonNodeFactory factory) {
    return factory == JsonNodeFactory.instance;
  }

  private Object readResolve() {
    return INSTANCE;
  }
}
