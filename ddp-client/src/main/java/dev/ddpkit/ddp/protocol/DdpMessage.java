package dev.ddpkit.ddp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;

/**
 * A message from a DDP server, parsed and type-checked by {@link DdpMessages#parse}. Optional
 * fields are {@code null} when absent; lists are never {@code null}.
 */
public sealed interface DdpMessage {

  /** A data message about one document of a collection. */
  sealed interface DataMessage extends DdpMessage {
    /** Returns the collection name. */
    String collection();

    /** Returns the document id. */
    String id();
  }

  /**
   * The first frame of some servers ({@code {"server_id":"0"}}), which carries no {@code msg}.
   *
   * @param serverId the server id
   */
  record ServerId(String serverId) implements DdpMessage {}

  /**
   * The handshake succeeded.
   *
   * @param session the session id
   */
  record Connected(String session) implements DdpMessage {
    /** Validates the components. */
    public Connected {
      Objects.requireNonNull(session, "session");
    }
  }

  /**
   * The server refused the protocol version and proposes another.
   *
   * @param version the version the server proposes
   */
  record Failed(String version) implements DdpMessage {
    /** Validates the components. */
    public Failed {
      Objects.requireNonNull(version, "version");
    }
  }

  /**
   * A ping; the answer is a pong with the same id.
   *
   * @param id the id, or {@code null}
   */
  record Ping(String id) implements DdpMessage {}

  /**
   * A pong.
   *
   * @param id the id, or {@code null}
   */
  record Pong(String id) implements DdpMessage {}

  /**
   * A subscription ended or was refused.
   *
   * @param id the subscription id
   * @param error the error, or {@code null}
   */
  record NoSub(String id, DdpError error) implements DdpMessage {}

  /**
   * Subscriptions have sent their initial data.
   *
   * @param subs the subscription ids
   */
  record Ready(List<String> subs) implements DdpMessage {
    /** Copies the list. */
    public Ready {
      subs = List.copyOf(subs);
    }
  }

  /**
   * A document was added.
   *
   * @param collection the collection
   * @param id the document id
   * @param fields the fields (empty if none)
   */
  record Added(String collection, String id, ObjectNode fields) implements DataMessage {}

  /**
   * A document changed.
   *
   * @param collection the collection
   * @param id the document id
   * @param fields the fields set (empty if none)
   * @param cleared the fields removed
   */
  record Changed(String collection, String id, ObjectNode fields, List<String> cleared)
      implements DataMessage {
    /** Copies the list. */
    public Changed {
      cleared = List.copyOf(cleared);
    }
  }

  /**
   * A document was removed.
   *
   * @param collection the collection
   * @param id the document id
   */
  record Removed(String collection, String id) implements DataMessage {}

  /**
   * A document was added to an ordered collection.
   *
   * @param collection the collection
   * @param id the document id
   * @param fields the fields (empty if none)
   * @param before the id of the document it goes before, or {@code null} for the end
   */
  record AddedBefore(String collection, String id, ObjectNode fields, String before)
      implements DataMessage {}

  /**
   * A document moved in an ordered collection.
   *
   * @param collection the collection
   * @param id the document id
   * @param before the id of the document it goes before, or {@code null} for the end
   */
  record MovedBefore(String collection, String id, String before) implements DataMessage {}

  /**
   * The result of a method call.
   *
   * @param id the method id
   * @param result the result ({@code NullNode} if none or if the call failed)
   * @param error the error, or {@code null} if the call succeeded
   */
  record Result(String id, JsonNode result, DdpError error) implements DdpMessage {}

  /**
   * The writes of these methods are visible.
   *
   * @param methods the method ids
   */
  record Updated(List<String> methods) implements DdpMessage {
    /** Copies the list. */
    public Updated {
      methods = List.copyOf(methods);
    }
  }

  /**
   * The server could not process a message of ours.
   *
   * @param reason the reason, possibly empty
   */
  record ServerError(String reason) implements DdpMessage {}

  /**
   * A reply whose type and target ids could be read but which has a malformed field: a {@code
   * result} or {@code nosub} with an {@code error} of the wrong shape, or a {@code ready} or {@code
   * updated} whose id list holds something other than strings. The client fails only these
   * targets and keeps the connection: redialing would bring the same reply again.
   *
   * @param msg the message type ({@code result}, {@code nosub}, {@code ready} or {@code updated})
   * @param ids the ids that could be read (one for {@code result} and {@code nosub}; possibly
   *     none for a list)
   * @param problem what is wrong, naming the field; never quotes the frame
   */
  record Malformed(String msg, List<String> ids, String problem) implements DdpMessage {
    /** Validates the components and copies the list. */
    public Malformed {
      Objects.requireNonNull(msg, "msg");
      ids = List.copyOf(ids);
      Objects.requireNonNull(problem, "problem");
    }
  }

  /**
   * A frame that bends the spec in a well-known way whose meaning is not in doubt, read as that
   * meaning ({@link DdpMessages#read} only).
   *
   * @param meaning what the frame means, never itself a deviation
   * @param problem how the frame bends the spec; never quotes the frame
   */
  record Deviation(DdpMessage meaning, String problem) implements DdpMessage {
    /** Validates the components. */
    public Deviation {
      Objects.requireNonNull(meaning, "meaning");
      Objects.requireNonNull(problem, "problem");
      if (meaning instanceof Deviation) {
        throw new IllegalArgumentException("meaning must not be a deviation");
      }
    }
  }

  /**
   * A frame that is not DDP and means nothing certain ({@link DdpMessages#read} only): not JSON,
   * not an object, without {@code msg}, or with a field of the wrong type.
   *
   * @param problem what is wrong, naming the field; never quotes the frame
   */
  record Invalid(String problem) implements DdpMessage {
    /** Validates the components. */
    public Invalid {
      Objects.requireNonNull(problem, "problem");
    }
  }

  /**
   * A {@code msg} this client does not know.
   *
   * @param msg the message type
   */
  record Unknown(String msg) implements DdpMessage {}
}
