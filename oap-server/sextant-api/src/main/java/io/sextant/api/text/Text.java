package io.sextant.api.text;

/** Text helpers shared by modules that answer or log what clients sent. */
public final class Text {
  private Text() {}

  /**
   * {@code text} cut to {@code maxChars}, saying how long it was: a client that sends a megabyte
   * name must not get (or fill a log with) a megabyte error. Null stays null.
   */
  public static String shortened(String text, int maxChars) {
    if (text == null || text.length() <= maxChars) {
      return text;
    }
    return text.substring(0, maxChars) + "... (" + text.length() + " characters)";
  }
}
