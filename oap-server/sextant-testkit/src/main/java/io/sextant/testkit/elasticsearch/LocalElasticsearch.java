package io.sextant.testkit.elasticsearch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs one local Elasticsearch for trying Sextant on it (used by {@code scripts/run-with-elasticsearch.sh}):
 * starts it, writes {@code host:port} to the file given as the first argument, and stops it when
 * this process is stopped. Data lives under {@code target/es-data} and is deleted on exit.
 */
public final class LocalElasticsearch {
  private LocalElasticsearch() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: LocalElasticsearch <file to write host:port to>");
      System.exit(2);
    }
    ElasticsearchExtension es = new ElasticsearchExtension(Duration.ofSeconds(180), Duration.ofSeconds(30), "512m");
    Runtime.getRuntime().addShutdownHook(new Thread(es::close, "elasticsearch-stop"));
    es.start();
    Files.writeString(Path.of(args[0]), es.hostAndPort());
    System.out.println("Elasticsearch " + ElasticsearchExtension.ELASTICSEARCH_VERSION + " is up at " + es.httpUrl());
    Thread.currentThread().join();
  }
}
