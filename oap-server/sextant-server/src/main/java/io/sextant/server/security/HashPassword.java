package io.sextant.server.security;

import at.favre.lib.crypto.bcrypt.BCrypt;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code bin/sextant hash-password}: the bcrypt hash (cost 10) of the password on standard input,
 * one trailing newline ignored, for the users file.
 */
public final class HashPassword {
  private HashPassword() {}

  public static void main(String[] args) throws IOException {
    String password = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).replaceFirst("\\r?\\n$", "");
    if (password.isEmpty()) {
      System.err.println("usage: printf %s 'the password' | bin/sextant hash-password");
      System.exit(2);
    }
    System.out.println(BCrypt.withDefaults().hashToString(10, password.toCharArray()));
  }
}
