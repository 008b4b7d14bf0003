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
 * time taken nor the secrets' lengths tell an attacker anything. Each secret has a name, never the
 * secret itself, that says in the audit log which one was used.
 */
final class Tokens {
  static final Tokens NONE = new Tokens(List.of());
  private final List<Named> digests;

  /** A digest and the name it is known by. */
  record Named(String name, byte[] digest) {
    /** A SHA-256 digest in hex, as a users file gives it. */
    static Named ofHex(String name, String hexDigest) {
      return new Named(name, HexFormat.of().parseHex(hexDigest.strip()));
    }
  }

  private Tokens(List<Named> digests) {
    this.digests = List.copyOf(digests);
  }

  /**
   * From the secrets themselves, named after where they came from ({@code source}, e.g. the
   * setting's key; {@code source[2]} for the second of several); blanks are ignored.
   */
  static Tokens of(Collection<String> secrets, String source) {
    List<String> given = secrets.stream().filter(s -> !s.isBlank()).toList();
    List<Named> digests = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      digests.add(new Named(given.size() == 1 ? source : source + "[" + (i + 1) + "]", sha256(given.get(i).strip())));
    }
    return new Tokens(digests);
  }

  /** From secrets separated by commas, newlines or spaces (a setting or a file), named after {@code source}. */
  static Tokens parse(String text, String source) {
    return of(split(text), source);
  }

  /** The values of a list separated by commas, newlines or spaces, blanks left out. */
  static List<String> split(String text) {
    return Arrays.stream(text.split("[,\\s]+")).filter(v -> !v.isBlank()).toList();
  }

  /** From named digests, as a users file stores tokens (two may share a name: an old and a new one). */
  static Tokens of(List<Named> named) {
    return new Tokens(named);
  }

  boolean isEmpty() {
    return digests.isEmpty();
  }

  Tokens and(Tokens other) {
    List<Named> all = new ArrayList<>(digests);
    all.addAll(other.digests);
    return new Tokens(all);
  }

  boolean matches(String presented) {
    return match(presented) != null;
  }

  /** The name of the secret presented, or null if it is none of these; every digest is compared. */
  String match(String presented) {
    byte[] digest = sha256(presented);
    String name = null;
    for (Named d : digests) {
      if (MessageDigest.isEqual(d.digest(), digest) && name == null) {
        name = d.name();
      }
    }
    return name;
  }

  static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
