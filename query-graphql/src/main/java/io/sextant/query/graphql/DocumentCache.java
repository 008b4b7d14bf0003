package io.sextant.query.graphql;

import graphql.ExecutionInput;
import graphql.execution.preparsed.PreparsedDocumentEntry;
import graphql.execution.preparsed.PreparsedDocumentProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Parsed and validated documents by query text, least recently used out past {@code maxEntries}:
 * the UI sends the same few query texts with different variables, and parsing and validating a
 * dashboard's request costs as much as answering it from a warm store. Query texts longer than
 * {@link #MAX_QUERY_CHARS} are not kept, so the bound is on memory too.
 */
final class DocumentCache implements PreparsedDocumentProvider {
  static final int MAX_QUERY_CHARS = 16_384;
  private final Map<String, PreparsedDocumentEntry> entries;

  DocumentCache(int maxEntries) {
    this.entries = new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, PreparsedDocumentEntry> eldest) {
        return size() > maxEntries;
      }
    };
  }

  @Override
  public CompletableFuture<PreparsedDocumentEntry> getDocumentAsync(ExecutionInput input,
      Function<ExecutionInput, PreparsedDocumentEntry> parseAndValidate) {
    String query = input.getQuery();
    if (query.length() > MAX_QUERY_CHARS) {
      return CompletableFuture.completedFuture(parseAndValidate.apply(input));
    }
    PreparsedDocumentEntry entry;
    synchronized (entries) {
      entry = entries.get(query);
    }
    if (entry == null) {
      // Parsed outside the lock: two threads may both parse a new text, and either answer is right.
      entry = parseAndValidate.apply(input);
      synchronized (entries) {
        entries.put(query, entry);
      }
    }
    return CompletableFuture.completedFuture(entry);
  }

  int size() {
    synchronized (entries) {
      return entries.size();
    }
  }
}
