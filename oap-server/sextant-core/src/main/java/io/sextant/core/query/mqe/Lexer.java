package io.sextant.core.query.mqe;

import java.util.ArrayList;
import java.util.List;

/** Splits an MQE expression into tokens. Whitespace is skipped everywhere. */
final class Lexer {
  // Longest operators first so that ">=" is not read as ">" followed by "=".
  private static final String[] OPERATORS = {
      "&&", "||", "==", "!=", ">=", "<=", ">", "<", "+", "-", "*", "/", "%", "(", ")", "{", "}", "[", "]", ",", "="};

  private final String src;
  private int pos;

  private Lexer(String src) {
    this.src = src;
  }

  static List<Token> tokenize(String src) {
    return new Lexer(src).run();
  }

  private List<Token> run() {
    List<Token> tokens = new ArrayList<>();
    while (true) {
      while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
        pos++;
      }
      if (pos >= src.length()) {
        tokens.add(new Token(Token.Kind.EOF, "", src.length()));
        return tokens;
      }
      tokens.add(next());
    }
  }

  private Token next() {
    int start = pos;
    char c = src.charAt(pos);
    if (isDigit(c) || (c == '.' && pos + 1 < src.length() && isDigit(src.charAt(pos + 1)))) {
      return number();
    }
    if (Character.isLetter(c) || c == '_') {
      while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
        pos++;
      }
      return new Token(Token.Kind.IDENT, src.substring(start, pos), start);
    }
    if (c == '\'' || c == '"') {
      int end = src.indexOf(c, pos + 1);
      if (end < 0) {
        throw MqeException.syntax(src, start, "token recognition error at: '" + src.substring(start) + "'");
      }
      pos = end + 1;
      return new Token(Token.Kind.STRING, src.substring(start + 1, end), start);
    }
    for (String op : OPERATORS) {
      if (src.startsWith(op, pos)) {
        pos += op.length();
        return new Token(Token.Kind.OP, op, start);
      }
    }
    throw MqeException.syntax(src, start, "token recognition error at: '" + c + "'");
  }

  /**
   * digits [. digits] as SkyWalking's INTEGER and DECIMAL; Sextant also reads an exponent and a leading dot.
   * Double.parseDouble does the conversion.
   */
  private Token number() {
    int start = pos;
    skipDigits();
    if (pos < src.length() && src.charAt(pos) == '.') {
      pos++;
      skipDigits();
    }
    if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
      int expStart = pos;
      pos++;
      if (pos < src.length() && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
        pos++;
      }
      if (pos >= src.length() || !isDigit(src.charAt(pos))) {
        throw MqeException.syntax(src, expStart, "malformed number '" + src.substring(start, pos) + "'");
      }
      skipDigits();
    }
    return new Token(Token.Kind.NUMBER, src.substring(start, pos), start);
  }

  private void skipDigits() {
    while (pos < src.length() && isDigit(src.charAt(pos))) {
      pos++;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
