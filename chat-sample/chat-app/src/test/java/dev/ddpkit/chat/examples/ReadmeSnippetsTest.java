package dev.ddpkit.chat.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * README.md's Java snippets are the compiled examples of this package, word for word: a snippet
 * edited in one place and not the other fails here.
 */
@Timeout(value = 10, unit = SECONDS)
class ReadmeSnippetsTest {
  private static final Path README = Path.of("../..", "README.md");
  private static final Path EXAMPLES = Path.of("src/test/java/dev/ddpkit/chat/examples");
  private static final Path CONSUMER_EXAMPLE =
      Path.of("../..", "consumer/src/main/java/dev/ddpkit/consumer/ReadmeExample.java");
  private static final String BEGINS = "// --- README example begins ---";
  private static final String ENDS = "// --- README example ends ---";

  @Test
  void thePlainSocketSnippetIsReadmePlainSocketExample() throws IOException {
    assertThat(readmeSnippet("## The manager driving a plain socket"))
        .isEqualTo(example("ReadmePlainSocketExample.java"));
  }

  @Test
  void theDdpSnippetIsReadmeExample() throws IOException {
    assertThat(readmeSnippet("## A DDP client in 20 lines"))
        .isEqualTo(example("ReadmeExample.java"));
  }

  @Test
  void theConsumerBuildRunsTheSameDdpSnippet() throws IOException {
    // consumer/ compiles it against ddp-client's coordinates (scripts/consumer-build.sh).
    assertThat(example(CONSUMER_EXAMPLE))
        .isEqualTo(example(EXAMPLES.resolve("ReadmeExample.java")));
  }

  @Test
  void snippetsAreComparedLineByLine() {
    assertThat(outdent(List.of("    a();", "      b();", "", "    c();")))
        .isEqualTo("a();\n  b();\n\nc();\n");
  }

  /** The first ```java block after {@code heading}. */
  private static String readmeSnippet(String heading) throws IOException {
    String readme = Files.readString(README);
    int at = readme.indexOf(heading + "\n");
    assertThat(at).as("README heading %s", heading).isNotNegative();
    int begin = readme.indexOf("```java\n", at);
    assertThat(begin).as("a java block after %s", heading).isNotNegative();
    begin += "```java\n".length();
    int end = readme.indexOf("```\n", begin);
    return readme.substring(begin, end);
  }

  /** The lines between the example's markers, with their common indentation removed. */
  private static String example(String file) throws IOException {
    return example(EXAMPLES.resolve(file));
  }

  private static String example(Path path) throws IOException {
    String file = path.getFileName().toString();
    List<String> lines = Files.readAllLines(path);
    int begin = indexOfTrimmed(lines, BEGINS, file);
    int end = indexOfTrimmed(lines, ENDS, file);
    return outdent(lines.subList(begin + 1, end));
  }

  private static int indexOfTrimmed(List<String> lines, String marker, String file) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).trim().equals(marker)) {
        return i;
      }
    }
    throw new AssertionError(file + " has no line " + marker);
  }

  static String outdent(List<String> lines) {
    int indent = lines.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent))
        .collect(Collectors.joining("\n", "", "\n"));
  }
}
