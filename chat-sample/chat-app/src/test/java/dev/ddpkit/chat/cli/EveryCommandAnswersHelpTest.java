package dev.ddpkit.chat.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every command of {@code ddpkit.jar} answers {@code --help} (and {@code -h}) on standard output
 * with exit 0, and its text names every option its parser accepts: the parser's {@code case
 * "--x"} labels are read from the command's source, so an option added without a line of help
 * fails here.
 */
class EveryCommandAnswersHelpTest {
  private static final Path MAIN = Path.of("src/main/java/dev/ddpkit/chat");
  private static final Pattern CASE_LINE = Pattern.compile("case (\"-[^:>]*?\")\\s*->");
  private static final Pattern LABEL = Pattern.compile("\"(--?[a-z-]+)\"");

  @ParameterizedTest(name = "{0} --help")
  @CsvSource({
      "serve, cli/ServeCommand.java",
      "chat, cli/ChatCommand.java",
      "demo, demo/DemoCommand.java",
      "herd --real, bench/RealHerdCommand.java",
  })
  void helpNamesEveryOptionAndExitsZero(String command, String source) throws IOException {
    for (String flag : List.of("--help", "-h")) {
      Run run = run(command + " " + flag);
      assertThat(run.status).as("%s %s", command, flag).isZero();
      assertThat(run.err).isEmpty();
      assertThat(run.out).startsWith("usage: " + command.split(" ")[0]);
      for (List<String> labels : caseLabels(MAIN.resolve(source))) {
        assertThat(labels).as("options of %s documented in its --help", command)
            .anyMatch(label -> run.out.contains(label));
      }
    }
  }

  @Test
  void helpWinsOverOtherArgumentsEvenBadOnes() {
    Run run = run("serve --port x --help");
    assertThat(run.status).isZero();
    assertThat(run.out).contains("--data DIR");
  }

  @Test
  void theSimulationAnswersHelpToo() {
    Run run = run("herd --help");
    assertThat(run.status).isZero();
    assertThat(run.out).startsWith("usage: herd");
  }

  @Test
  void noArgumentListsEachCommandWithWhatItDoesNow() {
    Run run = run("");
    assertThat(run.status).isEqualTo(2);
    assertThat(run.err).contains("<command> --help")
        .contains("  serve ", "  chat ", "  demo ", "  herd ")
        .contains("planned restart with appointments, then a hard kill");
  }

  /** The labels of each {@code case "--x", "--y" ->} line of a command's parser. */
  private static List<List<String>> caseLabels(Path source) throws IOException {
    List<List<String>> all = new ArrayList<>();
    Matcher line = CASE_LINE.matcher(Files.readString(source));
    while (line.find()) {
      List<String> labels = new ArrayList<>();
      Matcher label = LABEL.matcher(line.group(1));
      while (label.find()) {
        labels.add(label.group(1));
      }
      all.add(labels);
    }
    assertThat(all).as("option labels in %s", source).hasSizeGreaterThan(3);
    return all;
  }

  private static Run run(String commandLine) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] args = commandLine.isBlank() ? new String[0] : commandLine.trim().split(" ");
    int status = Main.run(args, new ByteArrayInputStream(new byte[0]),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private record Run(int status, String out, String err) {}
}
