package io.sextant.core.query.mqe;

/** A user-facing MQE error (syntax, unknown metric, bad arguments); its message is shown to the user as is. */
public class MqeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MqeException(String message) {
    super(message);
  }
}
