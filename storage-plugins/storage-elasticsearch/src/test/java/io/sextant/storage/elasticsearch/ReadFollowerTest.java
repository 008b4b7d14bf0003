package io.sextant.storage.elasticsearch;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** What an operator reads in the log while Elasticsearch is down and once it is back. */
class ReadFollowerTest {
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ReadFollower.class);

  @BeforeEach
  void capture() {
    log.start();
    logger.addAppender(log);
  }

  @AfterEach
  void release() {
    logger.detachAppender(log);
  }

  @Test
  void anOutageIsLoggedOnceAndTheRecoveryOnceEvenWhenAnotherPassHadNothingToSearch() {
    AtomicBoolean down = new AtomicBoolean(true);
    ReadFollower.Pass metrics = () -> {
      if (down.get()) {
        throw new UncheckedIOException("search failed", new ConnectException("Connection refused"));
      }
      return 1;
    };
    ReadFollower.Pass idleTopology = () -> 0;
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ReadFollower follower = new ReadFollower(List.of(metrics, idleTopology), 3_600_000, registry)) {
      for (int round = 0; round < 5; round++) {
        follower.runPasses();
      }
      assertThat(log.list).extracting(e -> e.getLevel() + " " + e.getFormattedMessage())
          .singleElement().asString().startsWith("WARN following what reads asked lately failed");

      down.set(false);
      follower.runPasses();
      follower.runPasses();
    }
    assertThat(log.list).extracting(e -> e.getLevel().toString()).containsExactly("WARN", "INFO");
    assertThat(registry.get("sextant_es_read_follows").tag("outcome", "failed").counter().count()).isEqualTo(5);
    assertThat(registry.get("sextant_es_read_follows").tag("outcome", "ok").counter().count()).isEqualTo(2);
  }
}
