package io.sextant.server.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A file re-read when its content changes: a Kubernetes Secret updated in place (through its
 * {@code ..data} symlink swap) or a certificate cert-manager renewed. Compared by content, not time
 * stamps, which a symlink swap does not always move.
 */
public final class WatchedFile {
  private final Path path;
  private byte[] last;

  public WatchedFile(String path) {
    this.path = Path.of(path);
  }

  public Path path() {
    return path;
  }

  /** The content when it differs from the last read one, else null; throws when it cannot be read. */
  public byte[] changed() throws IOException {
    byte[] now = Files.readAllBytes(path);
    if (last != null && Arrays.equals(last, now)) {
      return null;
    }
    last = now;
    return now;
  }
}
