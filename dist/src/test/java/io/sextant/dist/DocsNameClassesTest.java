package io.sextant.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the docs true to the code: a class name written in backticks in {@code docs/*.md} or in a
 * {@code README.md} must name a class in the repository's main or test sources, or be on the
 * allow-list of names that are not ours. A class renamed or removed fails here, naming the file,
 * the line and the name, until the docs follow.
 *
 * <p>A class name is UpperCamelCase with at least two capitals and a lower-case letter
 * ({@code Aggregator} alone is skipped: single words are as often GraphQL types, headers or scopes),
 * optionally qualified ({@code io.sextant.core.flush.Flusher}) and optionally followed by members
 * ({@code RuleEvaluator.Prefetched}, {@code RecordSink.offer(Observation)}); only the class part is
 * checked. A class is a {@code .java} file or a type declared in one (nested types count).
 */
class DocsNameClassesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** The dated measurement log names classes as they were on its day; it is history, not a claim. */
  private static final Set<String> HISTORY = Set.of("performance-history.md");

  /** Names that are not ours; only foreign names belong here. */
  private static final Set<String> NOT_OURS = Set.of(
      // The JDK.
      "CompilationMXBean", "FileChannel", "OverlappingFileLockException", "ServiceLoader", "StampedLock",
      // graphql-java and Armeria.
      "PreparsedDocumentProvider", "TlsProvider",
      // SkyWalking's gRPC services and messages, the protocols the receivers serve.
      "ServiceMeshMetricService", "EventService", "LogReportService", "MeterReportService",
      "MeterDataCollection", "EBPFProcessService", "EBPFProfilingService", "EBPFProfilingTaskQuery",
      "EBPFProcessDownstream", "ContinuousProfilingService", "EBPFAccessLogService", "SpanAttachedEventReportService",
      // SkyWalking's classes a behaviour was read from and is compared with.
      "AccessLogServiceHandler",
      // SkyWalking Rover's commands and the keys of their arguments and JSON.
      "ContinuousProfilingPolicyQuery", "ContinuousProfilingReportTask", "SerialNumber", "TaskId",
      "ProcessId", "TaskUpdateTime", "TaskStartTime", "TriggerType", "TargetType", "ExtensionConfigJSON",
      "FixedTriggerDuration", "ServiceWithPolicyJSON", "ServiceName",
      // SkyWalking's UI: entity names and widget types in dashboard templates.
      "ServiceInstance", "ServiceInstanceRelation", "ProcessRelation",
      "ContinuousProfiling", "NetworkProfiling",
      // Envoy, Istio and Kubernetes configuration.
      "GrpcService", "IstioOperator", "ScheduleAnyway", "EnvoyFilter");

  /** Backticked file names that are not Java sources ({@code MQELexer.g4}). */
  private static final Set<String> OTHER_FILES = Set.of("g4", "proto", "graphqls", "yml", "yaml", "json", "md",
      "xml", "sh", "properties", "txt", "jar");

  private static final Pattern CODE_SPAN = Pattern.compile("`([^`\n]+)`");
  private static final Pattern NAME = Pattern.compile(
      "(?:[a-z][a-z0-9_]*\\.)*([A-Z][A-Za-z0-9]*)((?:\\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\\(.*\\))?");
  private static final Pattern CLASS_NAME = Pattern.compile("(?=[A-Za-z0-9]*[a-z])(?=[A-Z][A-Za-z0-9]*[A-Z])"
      + "[A-Z][A-Za-z0-9]*");
  private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");

  @Test
  void everyClassNameInTheDocsNamesAClass() throws IOException {
    Set<String> classes = classes();
    List<String> wrong = new ArrayList<>();
    for (Path doc : docs()) {
      List<String> lines = Files.readAllLines(doc);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.strip().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        Matcher span = CODE_SPAN.matcher(line);
        while (span.find()) {
          String name = className(span.group(1).strip());
          if (name != null && !classes.contains(name) && !NOT_OURS.contains(name)) {
            wrong.add(ROOT.relativize(doc) + ":" + (i + 1) + ": " + name);
          }
        }
      }
    }
    assertThat(wrong).as("class names in the docs that name no class in the code (fix the doc, or allow-list"
        + " a name that is not ours in " + getClass().getSimpleName() + ")").isEmpty();
  }

  @Test
  void theAllowListHoldsNoNameOfOurs() throws IOException {
    Set<String> ours = new HashSet<>(NOT_OURS);
    ours.retainAll(classes());
    assertThat(ours).as("allow-listed names that are classes of ours").isEmpty();
  }

  /** The class part of a code span that reads as a class name, or null. */
  static String className(String span) {
    Matcher m = NAME.matcher(span);
    if (!m.matches() || !CLASS_NAME.matcher(m.group(1)).matches()) {
      return null;
    }
    String members = m.group(2);
    if (!members.isEmpty() && OTHER_FILES.contains(members.substring(members.lastIndexOf('.') + 1))) {
      return null;
    }
    return m.group(1);
  }

  private static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>();
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(p -> p.getFileName().toString().endsWith(".md"))
          .filter(p -> !HISTORY.contains(p.getFileName().toString()))
          .sorted().forEach(docs::add);
    }
    try (Stream<Path> files = sources()) {
      files.filter(p -> p.getFileName().toString().equals("README.md")).sorted().forEach(docs::add);
    }
    assertThat(docs).as("docs found under " + ROOT).hasSizeGreaterThan(5);
    return docs;
  }

  private static Set<String> classes() throws IOException {
    Set<String> classes = new HashSet<>();
    try (Stream<Path> files = sources()) {
      files.filter(p -> p.getFileName().toString().endsWith(".java"))
          .filter(p -> {
            String path = p.toString().replace('\\', '/');
            return path.contains("/src/main/java/") || path.contains("/src/test/java/");
          })
          .forEach(p -> {
            String file = p.getFileName().toString();
            classes.add(file.substring(0, file.length() - ".java".length()));
            try {
              Matcher declared = DECLARED.matcher(Files.readString(p));
              while (declared.find()) {
                classes.add(declared.group(1));
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
    assertThat(classes).as("classes found under " + ROOT).contains("DocsNameClassesTest");
    return classes;
  }

  /** The repository's files, without build output, VCS data or installed packages. */
  private static Stream<Path> sources() throws IOException {
    List<Path> files = new ArrayList<>();
    Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
        boolean skipped = !dir.equals(ROOT)
            && (name.equals("target") || name.equals("node_modules") || name.startsWith("."));
        return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        files.add(file);
        return FileVisitResult.CONTINUE;
      }
    });
    return files.stream();
  }
}
