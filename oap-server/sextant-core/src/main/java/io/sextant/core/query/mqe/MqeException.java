package io.sextant.core.query.mqe;

import io.sextant.api.text.Text;

/** A user-facing MQE error (syntax, unknown metric, bad arguments); its message is shown to the user as is. */
public class MqeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What SkyWalking still answers next to the error (some errors keep their input's type and values), or null. */
  private final transient MqeResult partial;

  public MqeException(String message) {
    this(message, null);
  }

  MqeException(String message, MqeResult partial) {
    super(shortened(message));
    this.partial = partial;
  }

  /** Longest message answered: an error naming a megabyte metric name must not be a megabyte. */
  static final int MAX_MESSAGE_CHARS = 512;

  private static String shortened(String message) {
    return Text.shortened(message, MAX_MESSAGE_CHARS);
  }

  MqeResult partial() {
    return partial;
  }

  /**
   * A syntax error at a character offset of the expression, in the shape of SkyWalking's ANTLR errors:
   * {@code line 1:12 mismatched input ...} (line from 1, column from 0).
   */
  static MqeException syntax(String src, int pos, String reason) {
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < Math.min(pos, src.length()); i++) {
      if (src.charAt(i) == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return new MqeException("line " + line + ":" + (pos - lineStart) + " " + reason);
  }
}
