package dev.ddpkit.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link ChatListener} that records everything, for assertions. */
final class Recorder implements ChatListener {
  final List<ChatMessage> messages = new CopyOnWriteArrayList<>();
  final List<String> sent = new CopyOnWriteArrayList<>();
  final List<ChatStatus> statuses = new CopyOnWriteArrayList<>();
  final List<String> errors = new CopyOnWriteArrayList<>();
  final Map<String, AtomicInteger> timesSeen = new ConcurrentHashMap<>();
  /** Every change in order: "edited ID TEXT" or "deleted ID". */
  final List<String> changes = new CopyOnWriteArrayList<>();

  @Override
  public void onMessage(ChatMessage message) {
    messages.add(message);
    timesSeen.computeIfAbsent(message.id(), k -> new AtomicInteger()).incrementAndGet();
  }

  @Override
  public void onEdited(ChatMessage message) {
    changes.add("edited " + message.id() + " " + message.text());
  }

  @Override
  public void onDeleted(String rid, String id) {
    changes.add("deleted " + id);
  }

  @Override
  public void onSent(String rid, String id) {
    sent.add(id);
  }

  @Override
  public void onStatus(ChatStatus status) {
    statuses.add(status);
  }

  @Override
  public void onError(String message) {
    errors.add(message);
  }

  List<String> ids() {
    List<String> out = new ArrayList<>();
    messages.forEach(m -> out.add(m.id()));
    return out;
  }

  List<String> texts() {
    List<String> out = new ArrayList<>();
    messages.forEach(m -> out.add(m.text()));
    return out;
  }

  boolean saw(String id) {
    return timesSeen.containsKey(id);
  }

  long duplicates() {
    return timesSeen.values().stream().mapToInt(AtomicInteger::get).filter(n -> n > 1).count();
  }

  ChatStatus.State lastState() {
    return statuses.isEmpty() ? null : statuses.get(statuses.size() - 1).state();
  }
}
