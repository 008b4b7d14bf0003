package io.sextant.testkit.elasticsearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who Elasticsearch runs as. Elasticsearch refuses to run as root; when the test JVM is root it runs
 * as a dedicated unprivileged system user (created on demand), otherwise as the current user.
 */
final class OsUser {
  private static final Logger LOG = LoggerFactory.getLogger(OsUser.class);

  /** System property naming the unprivileged user Elasticsearch runs as when the tests run as root. */
  static final String USER_PROPERTY = "sextant.es.user";
  static final String DEFAULT_USER = "sextant-es";

  private static final Object CREATE_LOCK = new Object();

  private OsUser() {}

  static boolean isRoot() {
    try {
      return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
    } catch (Throwable e) { // module absent or not Unix
      return "root".equals(System.getProperty("user.name"));
    }
  }

  static String esUserName() {
    return System.getProperty(USER_PROPERTY, DEFAULT_USER);
  }

  /** Creates the unprivileged user if missing. Only meaningful (and only called) as root. */
  static void ensureEsUserExists() {
    String user = esUserName();
    synchronized (CREATE_LOCK) {
      if (userExists(user)) {
        return;
      }
      LOG.info("Creating system user '{}' to run Elasticsearch (it refuses to run as root)", user);
      String nologin = Files.isExecutable(Path.of("/usr/sbin/nologin")) ? "/usr/sbin/nologin" : "/bin/false";
      Result r = run(List.of("useradd", "--system", "--no-create-home", "--shell", nologin, user));
      // Another JVM may have created it concurrently (useradd exits 9 then): re-check rather than trust the code.
      if (!userExists(user)) {
        throw new IllegalStateException("Could not create system user '" + user + "' (useradd exit "
            + r.exitCode + "): " + r.output
            + ". Create it yourself: useradd --system --no-create-home --shell /usr/sbin/nologin " + user);
      }
    }
  }

  private static boolean userExists(String user) {
    return run(List.of("id", "-u", user)).exitCode == 0;
  }

  /** Prefixes {@code command} so that it runs as the Elasticsearch user (identity when not root). */
  static List<String> runAsEsUser(List<String> command) {
    if (!isRoot()) {
      return command;
    }
    String user = esUserName();
    List<String> wrapped = new ArrayList<>();
    if (onPath("runuser")) {
      wrapped.addAll(List.of("runuser", "-u", user, "--"));
    } else if (onPath("setpriv")) {
      wrapped.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + primaryGroup(user), "--init-groups", "--"));
    } else {
      throw new IllegalStateException(
          "Neither runuser nor setpriv found: cannot drop root privileges for Elasticsearch");
    }
    wrapped.addAll(command);
    return wrapped;
  }

  private static String primaryGroup(String user) {
    Result r = run(List.of("id", "-gn", user));
    if (r.exitCode != 0) {
      throw new IllegalStateException("id -gn " + user + " failed: " + r.output);
    }
    return r.output.trim();
  }

  private static boolean onPath(String exe) {
    String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    for (String dir : (path + ":/usr/sbin:/sbin:/usr/bin:/bin").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, exe))) {
        return true;
      }
    }
    return false;
  }

  /** Gives the Elasticsearch user ownership of {@code root} and everything below it (root only). */
  static void chownToEsUser(Path root) {
    if (!isRoot()) {
      return;
    }
    String userName = esUserName();
    try {
      UserPrincipalLookupService lookup = root.getFileSystem().getUserPrincipalLookupService();
      UserPrincipal user = lookup.lookupPrincipalByName(userName);
      GroupPrincipal group = lookup.lookupPrincipalByGroupName(primaryGroup(userName));
      try (Stream<Path> paths = Files.walk(root)) {
        for (Path p : (Iterable<Path>) paths::iterator) {
          PosixFileAttributeView view =
              Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
          view.setOwner(user);
          view.setGroup(group);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("chown -R " + userName + " " + root, e);
    }
  }

  /**
   * Whether a user other than the owner can reach {@code path}: every existing ancestor (and the path
   * itself if it exists) must be searchable ("x") by others. Ignores ACLs and group membership.
   */
  static boolean traversableByOthers(Path path) {
    for (Path p = path.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
      if (!Files.exists(p)) {
        continue;
      }
      try {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
        if (Files.isDirectory(p) && !perms.contains(PosixFilePermission.OTHERS_EXECUTE)) {
          return false;
        }
      } catch (IOException | UnsupportedOperationException e) {
        return false;
      }
    }
    return true;
  }

  record Result(int exitCode, String output) {}

  static Result run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(-1, "timed out");
      }
      return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Result(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, e.toString());
    }
  }
}
