package io.sextant.core.spool;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * One writer's strings in one spool file: the first use of a string writes it and gives it a
 * number, later uses write the number (a byte or two for the names a mesh repeats). A writer's
 * frames reach the file in its own order, so a number is always defined before it is read; the
 * reader keeps one table per writer and file. Past {@link #MAX} strings, new ones are written in
 * full each time (memory stays bounded whatever the names).
 */
public final class StringTable {
  static final int MAX = 16_384;
  private static final int NULL = 0;
  private static final int LITERAL = 1;
  private static final int DEFINE = 2;
  private static final int FIRST_ID = 3;
  private static final int RECENT = 1024;
  private final HashMap<String, Integer> ids = new HashMap<>();
  /**
   * A direct-mapped cache of the map by the string's identity: the receivers hand out one instance
   * per repeated name, so most lookups end here without the map's node and box.
   */
  private final String[] recentStrings = new String[RECENT];
  private final int[] recentIds = new int[RECENT];

  /** Forgets every number: the writer starts a new file. */
  public void clear() {
    ids.clear();
    Arrays.fill(recentStrings, null);
  }

  void write(Out o, String s) {
    if (s == null) {
      o.varint(NULL);
      return;
    }
    int slot = s.hashCode() & (RECENT - 1);
    if (recentStrings[slot] == s) {
      o.varint(FIRST_ID + (long) recentIds[slot]);
      return;
    }
    Integer id = ids.get(s);
    if (id != null) {
      recentStrings[slot] = s;
      recentIds[slot] = id;
      o.varint(FIRST_ID + (long) id);
      return;
    }
    if (ids.size() < MAX) {
      recentStrings[slot] = s;
      recentIds[slot] = ids.size();
      ids.put(s, ids.size());
      o.varint(DEFINE);
    } else {
      o.varint(LITERAL);
    }
    o.utf8(s);
  }

  /** The reading side: one per writer and file. */
  public static final class Reader {
    private final List<String> strings = new ArrayList<>();

    String read(In in) {
      long code = in.varint();
      if (code == NULL) {
        return null;
      }
      if (code == LITERAL) {
        return in.utf8();
      }
      if (code == DEFINE) {
        String s = in.utf8();
        strings.add(s);
        return s;
      }
      long id = code - FIRST_ID;
      if (id < 0 || id >= strings.size()) { // negative: a varint past Long.MAX_VALUE
        throw new IllegalArgumentException("string " + id + " used before it was defined");
      }
      return strings.get((int) id);
    }
  }
}
