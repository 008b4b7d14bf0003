package io.sextant.api.storage;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Strings in a record's binary body, length-prefixed UTF-8 ({@code writeUTF} stops at 64 KB). */
public final class RecordBodies {
  private RecordBodies() {}

  public static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  /** The next string; a length the body cannot hold is a damaged body. */
  public static String readString(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IOException("bad string length " + n);
    }
    return new String(in.readNBytes(n), StandardCharsets.UTF_8);
  }
}
