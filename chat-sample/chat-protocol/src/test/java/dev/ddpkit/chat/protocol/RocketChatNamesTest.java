package dev.ddpkit.chat.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RocketChatNamesTest {
  @Test
  void aRoomEventIsTheRoomIdSlashTheEvent() {
    assertThat(RocketChatNames.roomEvent("general", RocketChatNames.EVENT_DELETE_MESSAGE))
        .isEqualTo("general/deleteMessage");
    assertThat(RocketChatNames.roomEvent("r1", RocketChatNames.EVENT_DELETE_MESSAGE_BULK))
        .isEqualTo("r1/deleteMessageBulk");
  }

  @Test
  void namesAreRocketChatsOwn() {
    assertThat(RocketChatNames.STREAM_ROOM_MESSAGES).isEqualTo("stream-room-messages");
    assertThat(RocketChatNames.STREAM_NOTIFY_ROOM).isEqualTo("stream-notify-room");
    assertThat(RocketChatNames.MESSAGES_GET).isEqualTo("messages/get");
    assertThat(RocketChatNames.SEND_MESSAGE).isEqualTo("sendMessage");
  }
}
