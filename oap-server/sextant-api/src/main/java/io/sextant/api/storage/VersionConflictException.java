package io.sextant.api.storage;

/**
 * A write expected a document version that is no longer (or not yet) the current one: someone else
 * (perhaps another collector) wrote first. The caller reads again and decides.
 */
public final class VersionConflictException extends RuntimeException {
  public VersionConflictException(String kind, String id, long expected) {
    super(kind + " '" + id + "' is not at version " + expected + (expected == 0 ? " (it exists already)" : "")
        + ": it was changed by someone else; read it again");
  }
}
