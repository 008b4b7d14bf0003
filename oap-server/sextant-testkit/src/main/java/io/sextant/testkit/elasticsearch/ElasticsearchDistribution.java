package io.sextant.testkit.elasticsearch;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the Elasticsearch integ-test zip (Maven artifact
 * {@code org.elasticsearch.distribution.integ-test-zip:elasticsearch:VERSION:zip}) and unpacks it once,
 * under a file lock, into a directory shared by every test JVM on the machine.
 */
final class ElasticsearchDistribution {
  private static final Logger LOG = LoggerFactory.getLogger(ElasticsearchDistribution.class);

  static final String VERSION = "8.15.0";
  static final String GROUP_PATH = "org/elasticsearch/distribution/integ-test-zip/elasticsearch";
  static final String ZIP_NAME = "elasticsearch-" + VERSION + ".zip";

  /** Explicit path of the zip. */
  static final String ZIP_PROPERTY = "sextant.es.distribution";
  /** Where the distribution is unpacked (and, as a fallback, instances are created). */
  static final String ROOT_PROPERTY = "sextant.es.root";
  /** Explicit JDK for Elasticsearch. */
  static final String JAVA_HOME_PROPERTY = "sextant.es.javaHome";

  /** Elasticsearch 8.15 runs on Java 17..23 (24 removed the security manager it still enables). */
  static final int MIN_JAVA = 17;
  static final int MAX_JAVA = 23;

  private static final String MARKER = ".sextant-installed";
  private static final Object JVM_LOCK = new Object();
  private static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwxr-xr-x");
  private static final Set<PosixFilePermission> FILE_PERMS = PosixFilePermissions.fromString("rw-r--r--");

  private ElasticsearchDistribution() {}

  /** The directory all shared state lives in; world-traversable so the unprivileged user can read it. */
  static Path sharedRoot() {
    String explicit = System.getProperty(ROOT_PROPERTY);
    Path root = explicit != null && !explicit.isBlank()
        ? Path.of(explicit)
        // Per user when not root: a root-owned /tmp/sextant-es would not be writable.
        : Path.of(System.getProperty("java.io.tmpdir"),
            OsUser.isRoot() ? "sextant-es" : "sextant-es-" + System.getProperty("user.name"));
    root = root.toAbsolutePath().normalize();
    try {
      createWorldReadableDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + root, e);
    }
    if (OsUser.isRoot() && !OsUser.traversableByOthers(root)) {
      throw new IllegalStateException(root + " is not traversable by user '" + OsUser.esUserName()
          + "'; set -D" + ROOT_PROPERTY + "=<a world-traversable directory, e.g. /tmp/sextant-es>");
    }
    return root;
  }

  /** Returns ES_HOME of an unpacked distribution, unpacking it on first use. */
  static Path install() {
    Path zip = locateZip();
    Path root = sharedRoot();
    Path home = root.resolve("elasticsearch-" + VERSION);
    synchronized (JVM_LOCK) {
      if (Files.isRegularFile(home.resolve(MARKER))) {
        return home;
      }
      Path lockFile = root.resolve("elasticsearch-" + VERSION + ".lock");
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
           FileLock lock = channel.lock()) {
        LOG.debug("Holding {}", lock);
        if (Files.isRegularFile(home.resolve(MARKER))) {
          return home; // another JVM unpacked it while we waited
        }
        long t0 = System.nanoTime();
        if (Files.exists(home)) { // a half-finished install from a killed JVM (no marker)
          deleteRecursively(home);
        }
        Path staging = root.resolve("elasticsearch-" + VERSION + ".tmp-" + UUID.randomUUID());
        try {
          unzip(zip, staging);
          Path unpacked = staging.resolve("elasticsearch-" + VERSION);
          if (!Files.isRegularFile(unpacked.resolve("bin/elasticsearch"))) {
            throw new IllegalStateException(zip + " does not contain elasticsearch-" + VERSION + "/bin/elasticsearch");
          }
          Files.writeString(unpacked.resolve(MARKER), zip + "\n", StandardCharsets.UTF_8);
          Files.setPosixFilePermissions(unpacked.resolve(MARKER), FILE_PERMS);
          Files.move(unpacked, home, StandardCopyOption.ATOMIC_MOVE);
        } finally {
          deleteRecursively(staging);
        }
        LOG.info("Unpacked {} into {} in {} ms", zip, home, (System.nanoTime() - t0) / 1_000_000);
        return home;
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot unpack " + zip + " into " + home, e);
      }
    }
  }

  /** Where the zip is: explicit property, class path, -Dmaven.repo.local, settings.xml, ~/.m2. */
  static Path locateZip() {
    Set<Path> candidates = new LinkedHashSet<>();
    for (String explicit : new String[] {System.getProperty(ZIP_PROPERTY), System.getenv("SEXTANT_ES_DISTRIBUTION")}) {
      if (explicit != null && !explicit.isBlank() && !explicit.contains("${")) {
        candidates.add(Path.of(explicit));
      }
    }
    for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
      if (entry.endsWith(File.separator + ZIP_NAME)) {
        candidates.add(Path.of(entry));
      }
    }
    for (Path repo : localRepositories()) {
      candidates.add(repo.resolve(GROUP_PATH).resolve(VERSION).resolve(ZIP_NAME));
    }
    for (Path candidate : candidates) {
      if (Files.isRegularFile(candidate)) {
        return candidate.toAbsolutePath();
      }
    }
    throw new IllegalStateException("Elasticsearch distribution " + ZIP_NAME + " not found; looked at " + candidates
        + ". Depend on io.sextant:sextant-testkit (it brings org.elasticsearch.distribution.integ-test-zip:"
        + "elasticsearch:" + VERSION + ":zip), run `mvn dependency:get -Dartifact=org.elasticsearch.distribution."
        + "integ-test-zip:elasticsearch:" + VERSION + ":zip`, or set -D" + ZIP_PROPERTY + "=/path/to/" + ZIP_NAME);
  }

  private static List<Path> localRepositories() {
    List<Path> repos = new ArrayList<>();
    String prop = System.getProperty("maven.repo.local");
    if (prop != null && !prop.isBlank()) {
      repos.add(Path.of(prop));
    }
    Path m2 = Path.of(System.getProperty("user.home"), ".m2");
    localRepositoryFromSettings(m2.resolve("settings.xml")).ifPresent(repos::add);
    String mavenHome = System.getenv("MAVEN_HOME");
    if (mavenHome != null) {
      localRepositoryFromSettings(Path.of(mavenHome, "conf", "settings.xml")).ifPresent(repos::add);
    }
    repos.add(m2.resolve("repository"));
    return repos;
  }

  private static Optional<Path> localRepositoryFromSettings(Path settings) {
    try {
      if (!Files.isRegularFile(settings)) {
        return Optional.empty();
      }
      String xml = Files.readString(settings).replaceAll("(?s)<!--.*?-->", "");
      Matcher m = Pattern.compile("<localRepository>\\s*([^<]+?)\\s*</localRepository>").matcher(xml);
      if (!m.find()) {
        return Optional.empty();
      }
      String value = m.group(1).replace("${user.home}", System.getProperty("user.home"));
      return value.contains("${") ? Optional.empty() : Optional.of(Path.of(value));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Unpacks with the JDK's zip file system, keeping the archive's Unix permissions (bin/ scripts are
   * executable) and making everything readable by others.
   */
  private static void unzip(Path zip, Path target) throws IOException {
    createWorldReadableDirectories(target);
    Path normalizedTarget = target.toAbsolutePath().normalize();
    try (FileSystem zipFs = FileSystems.newFileSystem(URI.create("jar:" + zip.toUri()),
        Map.of("enablePosixFileAttributes", "true"))) {
      Path zipRoot = zipFs.getPath("/");
      try (Stream<Path> entries = Files.walk(zipRoot)) {
        for (Path entry : (Iterable<Path>) entries::iterator) {
          String relative = zipRoot.relativize(entry).toString();
          if (relative.isEmpty()) {
            continue;
          }
          Path out = normalizedTarget.resolve(relative).normalize();
          if (!out.startsWith(normalizedTarget)) {
            throw new IOException("Zip entry escapes the target directory: " + entry);
          }
          if (Files.isDirectory(entry)) {
            Files.createDirectories(out);
            Files.setPosixFilePermissions(out, DIR_PERMS);
          } else {
            Files.createDirectories(out.getParent());
            Files.copy(entry, out, StandardCopyOption.REPLACE_EXISTING);
            Set<PosixFilePermission> perms = EnumSet.copyOf(FILE_PERMS);
            if (isExecutable(entry) || relative.startsWith("elasticsearch-" + VERSION + "/bin/")) {
              perms.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                  PosixFilePermission.OTHERS_EXECUTE));
            }
            Files.setPosixFilePermissions(out, perms);
          }
        }
      }
    }
  }

  private static boolean isExecutable(Path zipEntry) {
    try {
      return Files.getPosixFilePermissions(zipEntry).contains(PosixFilePermission.OWNER_EXECUTE);
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** mkdir -p that gives every directory it creates rwxr-xr-x regardless of umask. */
  static void createWorldReadableDirectories(Path dir) throws IOException {
    List<Path> missing = new ArrayList<>();
    for (Path p = dir.toAbsolutePath().normalize(); p != null && !Files.exists(p); p = p.getParent()) {
      missing.add(0, p);
    }
    for (Path p : missing) {
      try {
        Files.createDirectory(p);
        Files.setPosixFilePermissions(p, DIR_PERMS);
      } catch (java.nio.file.FileAlreadyExistsException raced) {
        // created concurrently: fine
      }
    }
  }

  /** The JDK Elasticsearch runs on: explicit property, this JVM, or a JDK under /usr/lib/jvm. */
  static Path javaHome() {
    String explicit = System.getProperty(JAVA_HOME_PROPERTY, System.getenv("SEXTANT_ES_JAVA_HOME"));
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    List<Path> candidates = new ArrayList<>();
    candidates.add(Path.of(System.getProperty("java.home")));
    String envJavaHome = System.getenv("JAVA_HOME");
    if (envJavaHome != null && !envJavaHome.isBlank()) {
      candidates.add(Path.of(envJavaHome));
    }
    Path jvmDir = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvmDir)) {
      try (DirectoryStream<Path> jdks = Files.newDirectoryStream(jvmDir)) {
        List<Path> found = new ArrayList<>();
        jdks.forEach(found::add);
        found.sort(Comparator.comparing(Path::toString));
        candidates.addAll(found);
      } catch (IOException ignored) {
        // no extra candidates
      }
    }
    for (Path candidate : candidates) {
      Path home = candidate.toAbsolutePath().normalize();
      int feature = featureVersion(home);
      if (feature >= MIN_JAVA && feature <= MAX_JAVA && Files.isExecutable(home.resolve("bin/java"))
          && (!OsUser.isRoot() || OsUser.traversableByOthers(home.resolve("bin/java")))) {
        return home;
      }
    }
    throw new IllegalStateException("No JDK " + MIN_JAVA + ".." + MAX_JAVA + " usable by the Elasticsearch user found"
        + " among " + candidates + "; set -D" + JAVA_HOME_PROPERTY + "=/path/to/jdk");
  }

  private static int featureVersion(Path javaHome) {
    if (javaHome.equals(Path.of(System.getProperty("java.home")).toAbsolutePath().normalize())) {
      return Runtime.version().feature();
    }
    try {
      for (String line : Files.readAllLines(javaHome.resolve("release"))) {
        if (line.startsWith("JAVA_VERSION=")) {
          String v = line.substring("JAVA_VERSION=".length()).replace("\"", "").trim();
          String first = v.split("[.+-]")[0];
          return Integer.parseInt(first.equals("1") ? v.split("\\.")[1] : first);
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // not a JDK
    }
    return -1;
  }

  static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
