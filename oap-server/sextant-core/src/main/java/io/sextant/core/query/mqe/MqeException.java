package io.sextant.core.query.mqe;

/** A user-facing MQE error (syntax, unknown metric, bad arguments); its message is shown to the user as is. */
public class MqeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MqeException(String message) {
    super(message);
  }

  /** A syntax error at a position of the expression (used by the lexer and the parser alike). */
  static MqeException syntax(int pos, String reason) {
    return new MqeException("syntax error at position " + pos + ": " + reason);
  }
}
