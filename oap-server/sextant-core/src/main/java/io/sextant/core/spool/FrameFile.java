package io.sextant.core.spool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * An append-only file of frames: {@code [length][CRC32C of the payload][payload]}. A frame is
 * written by one {@code write} call, so a killed process leaves whole frames (the kernel has
 * them); a machine that stops mid-write leaves a torn last frame, which reading detects by its
 * length or checksum and skips with the rest of the file.
 */
final class FrameFile implements AutoCloseable {
  /** No frame is larger: a bigger length is corruption, not a reason to allocate. */
  static final int MAX_FRAME = 64 << 20;
  private static final int HEADER = 8;
  private final Path path;
  private final FileChannel channel;
  private final ByteBuffer header = ByteBuffer.allocate(HEADER);
  private long bytes;

  private FrameFile(Path path, FileChannel channel) {
    this.path = path;
    this.channel = channel;
  }

  static FrameFile create(Path path) {
    try {
      return new FrameFile(path, FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create spool file " + path, e);
    }
  }

  Path path() {
    return path;
  }

  /** Appends {@code out} as one frame; thread-safe. */
  synchronized void append(Out out) {
    int n = out.size();
    if (n > MAX_FRAME) {
      throw new IllegalArgumentException("spool frame of " + n + " bytes");
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, n);
    header.clear();
    header.putInt(n).putInt((int) crc.getValue()).flip();
    ByteBuffer[] both = {header, ByteBuffer.wrap(out.array(), 0, n)};
    try {
      while (both[1].hasRemaining()) {
        channel.write(both);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write spool file " + path, e);
    }
    bytes += HEADER + n;
  }

  synchronized long bytes() {
    return bytes;
  }

  /** Forces what was appended to the device. */
  void force() {
    try {
      channel.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync spool file " + path, e);
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Hands every whole, intact frame of {@code path} to {@code frames} in order; returns false if
   * the file ends in a torn or corrupt frame (which, with everything after it, is skipped).
   */
  static boolean read(Path path, Consumer<ByteBuffer> frames) {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = ch.size();
      long pos = 0;
      ByteBuffer head = ByteBuffer.allocate(HEADER);
      while (pos < size) {
        if (size - pos < HEADER) {
          return false;
        }
        head.clear();
        readFully(ch, head, pos);
        head.flip();
        int n = head.getInt();
        int expected = head.getInt();
        if (n < 0 || n > MAX_FRAME || n > size - pos - HEADER) {
          return false;
        }
        ByteBuffer payload = ByteBuffer.allocate(n);
        readFully(ch, payload, pos + HEADER);
        CRC32C crc = new CRC32C();
        crc.update(payload.array(), 0, n);
        if ((int) crc.getValue() != expected) {
          return false;
        }
        payload.flip();
        frames.accept(payload);
        pos += HEADER + n;
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read spool file " + path, e);
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer into, long at) throws IOException {
    long pos = at;
    while (into.hasRemaining()) {
      int n = ch.read(into, pos);
      if (n < 0) {
        throw new IOException("unexpected end of " + at);
      }
      pos += n;
    }
  }
}
