package io.sextant.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;

/**
 * A set of secrets kept only as SHA-256 digests and matched in constant time: a presented secret is
 * hashed once and compared with every digest without stopping at the first match, so neither the
 * time taken nor the secrets' lengths tell an attacker anything.
 */
final class Tokens {
  static final Tokens NONE = new Tokens(List.of());
  private final List<byte[]> digests;

  private Tokens(List<byte[]> digests) {
    this.digests = List.copyOf(digests);
  }

  /** From the secrets themselves; blanks are ignored. */
  static Tokens of(Collection<String> secrets) {
    List<byte[]> digests = new ArrayList<>();
    for (String s : secrets) {
      if (!s.isBlank()) {
        digests.add(sha256(s.strip()));
      }
    }
    return new Tokens(digests);
  }

  /** From secrets separated by commas, newlines or spaces (a setting or a file). */
  static Tokens parse(String text) {
    return of(split(text));
  }

  /** The values of a list separated by commas, newlines or spaces, blanks left out. */
  static List<String> split(String text) {
    return Arrays.stream(text.split("[,\\s]+")).filter(v -> !v.isBlank()).toList();
  }

  /** From SHA-256 digests in hex, as a users file stores tokens. */
  static Tokens ofDigests(Collection<String> hexDigests) {
    return new Tokens(hexDigests.stream().map(h -> HexFormat.of().parseHex(h.strip())).toList());
  }

  boolean isEmpty() {
    return digests.isEmpty();
  }

  Tokens and(Tokens other) {
    List<byte[]> all = new ArrayList<>(digests);
    all.addAll(other.digests);
    return new Tokens(all);
  }

  boolean matches(String presented) {
    byte[] digest = sha256(presented);
    boolean match = false;
    for (byte[] d : digests) {
      match |= MessageDigest.isEqual(d, digest);
    }
    return match;
  }

  static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
