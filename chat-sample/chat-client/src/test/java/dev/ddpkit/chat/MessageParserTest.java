package dev.ddpkit.chat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class MessageParserTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s.replace('\'', '"'));
  }

  @Test
  void readsARocketChatMessage() throws Exception {
    JsonNode doc =
        json("{'_id':'m1','rid':'general','msg':'hi','ts':{'$date':1714557600000},"
            + "'u':{'_id':'u1','username':'alice'}}");
    assertThat(MessageParser.parse(doc, null))
        .contains(new ChatMessage("m1", "general", "alice", "hi", Instant.ofEpochMilli(1714557600000L)));
  }

  @Test
  void malformedDocumentsAreEmptyNotExceptions() throws Exception {
    assertThat(MessageParser.parse(json("[1]"), "general")).isEmpty();
    assertThat(MessageParser.parse(json("{'_id':5,'msg':'x','u':{'username':'a'},'ts':1}"), "general")).isEmpty();
    assertThat(MessageParser.parse(json("{'_id':'m','msg':'x','u':'alice','ts':1}"), "general")).isEmpty();
    assertThat(MessageParser.parse(json("{'_id':'m','msg':'x','u':{'username':'a'},'ts':{'$date':'soon'}}"), "general")).isEmpty();
    assertThat(MessageParser.parse(null, "general")).isEmpty();
  }

  @Test
  void missingRoomFallsBackToTheStreamsEventName() throws Exception {
    JsonNode doc = json("{'_id':'m','msg':'x','u':{'username':'a'},'ts':'2024-05-01T10:00:00Z'}");
    assertThat(MessageParser.parse(doc, "general")).map(ChatMessage::rid).contains("general");
  }

  @Test
  void listsSkipAndCountBadEntriesAndOtherRooms() throws Exception {
    JsonNode result =
        json("{'messages':[{'_id':'b','rid':'general','msg':'2','ts':{'$date':2},'u':{'username':'a'}},"
            + "{'bad':true},"
            + "{'_id':'c','rid':'random','msg':'3','ts':{'$date':3},'u':{'username':'a'}}]}");
    int[] bad = {0};
    assertThat(MessageParser.parseList(result, "general", bad)).extracting(ChatMessage::id).containsExactly("b");
    assertThat(bad[0]).isEqualTo(2);
    int[] bad2 = {0};
    assertThat(MessageParser.parseList(json("'nope'"), "general", bad2)).isEmpty();
    assertThat(bad2[0]).isEqualTo(1);
    assertThat(MessageParser.parseList(json("[]"), "general", bad2)).isEmpty();
  }
}
