package dev.ddpkit.ddp.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SmallObjectMap} behaves as the {@code LinkedHashMap} it stands for, below and past its
 * inline size, and the nodes {@link CompactNodeFactory} builds are Jackson's.
 */
class SmallObjectMapTest {
  private static final String[] KEYS = {"_id", "rid", "msg", "ts", "u", "_updatedAt", "editedAt",
      "t", "tmid", "alias", "avatar", "groupable", null};

  /** A key equal to one of KEYS but not the same object, to exercise the equals() path. */
  private static String copy(String key) {
    return key == null ? null : new String(key.toCharArray());
  }

  @Test
  void randomOperationsMatchALinkedHashMap() {
    Random random = new Random(0x5A11L);
    for (int run = 0; run < 2_000; run++) {
      SmallObjectMap<Integer> small = new SmallObjectMap<>();
      Map<String, Integer> expected = new LinkedHashMap<>();
      for (int op = 0; op < 40; op++) {
        String key = KEYS[random.nextInt(KEYS.length)];
        String probe = random.nextBoolean() ? key : copy(key);
        Integer value = random.nextInt(4) == 0 ? null : random.nextInt(100);
        switch (random.nextInt(9)) {
          case 0, 1, 2 -> assertThat(small.put(probe, value)).isEqualTo(expected.put(key, value));
          case 3 -> assertThat(small.remove(probe)).isEqualTo(expected.remove(key));
          case 4 -> {
            assertThat(small.get(probe)).isEqualTo(expected.get(key));
            assertThat(small.containsKey(probe)).isEqualTo(expected.containsKey(key));
          }
          case 5 -> { // remove through the iterator, every other entry
            Iterator<Map.Entry<String, Integer>> a = small.entrySet().iterator();
            Iterator<Map.Entry<String, Integer>> b = expected.entrySet().iterator();
            boolean drop = random.nextBoolean();
            while (b.hasNext()) {
              assertThat(a.hasNext()).isTrue();
              assertThat(a.next()).isEqualTo(b.next());
              if (drop) {
                a.remove();
                b.remove();
              }
              drop = !drop;
            }
            assertThat(a.hasNext()).isFalse();
          }
          case 6 -> { // write through an entry
            Iterator<Map.Entry<String, Integer>> a = small.entrySet().iterator();
            Iterator<Map.Entry<String, Integer>> b = expected.entrySet().iterator();
            while (b.hasNext()) {
              Map.Entry<String, Integer> ea = a.next();
              Map.Entry<String, Integer> eb = b.next();
              if (random.nextBoolean()) {
                assertThat(ea.setValue(op)).isEqualTo(eb.setValue(op));
              }
            }
          }
          case 7 -> {
            if (random.nextInt(10) == 0) {
              small.clear();
              expected.clear();
            }
          }
          default -> // a view's remove writes through
              assertThat(small.keySet().remove(probe)).isEqualTo(expected.keySet().remove(key));
        }
        assertThat(new ArrayList<>(small.entrySet())).isEqualTo(new ArrayList<>(expected.entrySet()));
        assertThat(small).isEqualTo(expected);
        assertThat(expected).isEqualTo(small);
        assertThat(small.hashCode()).isEqualTo(expected.hashCode());
        assertThat(small.size()).isEqualTo(expected.size());
        assertThat(small.isEmpty()).isEqualTo(expected.isEmpty());
      }
    }
  }

  @Test
  void keepsInsertionOrderPastTheInlineSize() {
    SmallObjectMap<Integer> small = new SmallObjectMap<>();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 3 * SmallObjectMap.MAX_INLINE; i++) {
      keys.add("k" + i);
      small.put("k" + i, i);
    }
    small.remove("k3");
    keys.remove("k3");
    small.put("k0", -1); // a replacement keeps its place
    assertThat(new ArrayList<>(small.keySet())).isEqualTo(keys);
    assertThat(small.get("k0")).isEqualTo(-1);
    assertThat(small.get("k" + (3 * SmallObjectMap.MAX_INLINE - 1)))
        .isEqualTo(3 * SmallObjectMap.MAX_INLINE - 1);
  }

  @Test
  void iteratorsFailFastOnAChangeBehindThem() {
    SmallObjectMap<Integer> small = new SmallObjectMap<>();
    small.put("a", 1);
    small.put("b", 2);
    Iterator<Map.Entry<String, Integer>> it = small.entrySet().iterator();
    it.next();
    small.put("c", 3);
    assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
    Iterator<Map.Entry<String, Integer>> again = small.entrySet().iterator();
    assertThatThrownBy(again::remove).isInstanceOf(IllegalStateException.class);
    again.next();
    small.clear();
    assertThat(again.hasNext()).isTrue(); // as a LinkedHashMap's: next() then reports the change
    assertThatThrownBy(again::next).isInstanceOf(ConcurrentModificationException.class);
  }

  @Test
  void aChangeThatMovesTheEntriesIntoALinkedHashMapFailsAnIteratorToo() {
    SmallObjectMap<Integer> small = new SmallObjectMap<>();
    for (int i = 0; i < SmallObjectMap.MAX_INLINE; i++) {
      small.put("k" + i, i);
    }
    Iterator<Map.Entry<String, Integer>> it = small.entrySet().iterator();
    it.next();
    small.put("one-more", 0);
    assertThat(it.hasNext()).isTrue();
    assertThatThrownBy(it::next).isInstanceOf(ConcurrentModificationException.class);
  }

  /** Entries are objects of their own, as a LinkedHashMap's (a review found the opposite). */
  @Test
  void anEntryKeepsItsValueAndWritesThroughAsALinkedHashMapsDoes() {
    for (int entries : new int[] {3, SmallObjectMap.MAX_INLINE}) {
      SmallObjectMap<Integer> small = new SmallObjectMap<>();
      Map<String, Integer> expected = new LinkedHashMap<>();
      for (int i = 0; i < entries; i++) {
        small.put("k" + i, i);
        expected.put("k" + i, i);
      }
      List<Map.Entry<String, Integer>> a = new ArrayList<>(small.entrySet());
      List<Map.Entry<String, Integer>> b = new ArrayList<>(expected.entrySet());
      small.remove("k0"); // a copied entry keeps its value once removed
      expected.remove("k0");
      assertThat(a.get(0).getValue()).isEqualTo(b.get(0).getValue()).isEqualTo(0);
      assertThat(a.get(1).setValue(10)).isEqualTo(b.get(1).setValue(10)); // after a removal
      small.put("new", 7); // a structural change, past the inline size for the larger map
      expected.put("new", 7);
      assertThat(a.get(entries - 1).setValue(20)).isEqualTo(b.get(entries - 1).setValue(20));
      small.clear();
      expected.clear();
      small.put("k1", 99);
      expected.put("k1", 99);
      assertThat(a.get(1).getValue()).isEqualTo(b.get(1).getValue()).isEqualTo(10);
      assertThat(small).isEqualTo(expected);
    }
  }

  @Test
  void fieldsMovedOutOfAParsedNodeKeepTheirValues() throws DdpProtocolException {
    ObjectNode f = ((DdpMessage.Added) new DdpMessages().parse("{\"msg\":\"added\","
        + "\"collection\":\"c\",\"id\":\"1\",\"fields\":{\"name\":\"ann\",\"age\":3}}")).fields();
    ObjectNode moved = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> e : new ArrayList<>(f.properties())) {
      f.remove(e.getKey());
      moved.set(e.getKey(), e.getValue());
    }
    assertThat(moved.toString()).isEqualTo("{\"name\":\"ann\",\"age\":3}");
  }

  @Test
  void compactNodesAreJacksonsTrees() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    String json = "{\"_id\":\"m1\",\"rid\":\"r\",\"msg\":\"hi\",\"ts\":{\"$date\":1},"
        + "\"u\":{\"_id\":\"u1\",\"username\":\"ann\"},\"a\":[1,2,3],\"b\":1,\"c\":2,\"d\":3,"
        + "\"e\":4,\"f\":5,\"g\":6}";
    JsonNode plain = mapper.readTree(json);
    JsonNode compact = mapper.reader().with(CompactNodeFactory.INSTANCE).readTree(json);
    assertThat(compact).isEqualTo(plain);
    assertThat(plain).isEqualTo(compact);
    assertThat(compact.hashCode()).isEqualTo(plain.hashCode());
    assertThat(mapper.writeValueAsString(compact)).isEqualTo(mapper.writeValueAsString(plain));
    ObjectNode edited = (ObjectNode) compact;
    edited.remove("msg");
    edited.put("msg", "again");
    edited.putObject("nested").put("x", 1);
    assertThat(mapper.writeValueAsString(edited)).endsWith("\"msg\":\"again\",\"nested\":{\"x\":1}}");
    assertThat(edited.deepCopy()).isEqualTo(edited);
    assertThat(CompactNodeFactory.replaces(JsonNodeFactory.instance)).isTrue();
    assertThat(CompactNodeFactory.replaces(JsonNodeFactory.withExactBigDecimals(true))).isFalse();
  }
}
