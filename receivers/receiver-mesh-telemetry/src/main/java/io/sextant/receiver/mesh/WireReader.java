package io.sextant.receiver.mesh;

/**
 * Reads protobuf's wire format straight off the message's bytes, so that strings can be looked up
 * by their bytes ({@link NameTable}) instead of being decoded first. Only what the mesh messages
 * need: varints, length-delimited fields, and skipping anything else as protobuf's own parser does.
 * A malformed message throws {@link Malformed}.
 */
final class WireReader {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int START_GROUP = 3;
  static final int END_GROUP = 4;
  static final int FIXED32 = 5;

  private final byte[] buf;
  private int pos;
  private int limit;

  WireReader(byte[] buf, int offset, int length) {
    this.buf = buf;
    this.pos = offset;
    this.limit = offset + length;
  }

  byte[] buffer() {
    return buf;
  }

  int position() {
    return pos;
  }

  boolean atEnd() {
    return pos >= limit;
  }

  /** The next field's tag (field number and wire type); 0 at the end of the current limit. */
  int readTag() {
    if (pos >= limit) {
      return 0;
    }
    int tag = (int) readVarint();
    if (tag >>> 3 == 0) {
      throw new Malformed("invalid tag (zero)");
    }
    return tag;
  }

  long readVarint() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= limit) {
        throw new Malformed("truncated varint");
      }
      byte b = buf[pos++];
      result |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new Malformed("malformed varint");
  }

  /** The length of a length-delimited field, checked against what is left; the reader is left at its first byte. */
  int readLength() {
    long length = readVarint();
    if (length < 0 || length > limit - pos) {
      throw new Malformed("truncated length-delimited field");
    }
    return (int) length;
  }

  /** Narrows the reader to {@code length} bytes from here; returns the limit to restore with {@link #popLimit}. */
  int pushLimit(int length) {
    int old = limit;
    limit = pos + length;
    return old;
  }

  void popLimit(int oldLimit) {
    pos = limit;
    limit = oldLimit;
  }

  void skip(int length) {
    pos += length;
  }

  /** Skips a field of the given tag, as protobuf does for fields it does not know. */
  void skipField(int tag) {
    switch (tag & 7) {
      case VARINT -> readVarint();
      case FIXED64 -> skipBytes(8);
      case LENGTH_DELIMITED -> skip(readLength());
      case FIXED32 -> skipBytes(4);
      case START_GROUP -> skipGroup(tag >>> 3);
      default -> throw new Malformed("invalid wire type " + (tag & 7));
    }
  }

  private void skipBytes(int n) {
    if (limit - pos < n) {
      throw new Malformed("truncated fixed-width field");
    }
    pos += n;
  }

  private void skipGroup(int field) {
    while (true) {
      int tag = readTag();
      if (tag == 0) {
        throw new Malformed("unterminated group");
      }
      if ((tag & 7) == END_GROUP) {
        if (tag >>> 3 != field) {
          throw new Malformed("mismatched end of group");
        }
        return;
      }
      skipField(tag);
    }
  }

  static int tag(int field, int wireType) {
    return field << 3 | wireType;
  }

  /** A message that is not valid protobuf; the message says what is wrong. */
  static final class Malformed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Malformed(String reason) {
      super(reason, null, false, false);
    }
  }
}
