package io.sextant.server.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class StartOrderTest {
  @Test
  void stopsInReverseOrderOnceEvenWhenOneFailsToStop() {
    List<String> log = new ArrayList<>();
    StartOrder order = new StartOrder();
    order.start("storage", () -> log.add("start storage"), () -> log.add("stop storage"));
    order.start("flusher", () -> log.add("start flusher"), () -> {
      throw new IllegalStateException("stuck");
    });
    order.start("server", () -> log.add("start server"), () -> log.add("stop server"));
    order.stopAll();
    order.stopAll();
    assertThat(log).containsExactly("start storage", "start flusher", "start server", "stop server",
        "stop storage");
  }

  @Test
  void aComponentThatFailsToStartIsNotStopped() {
    List<String> log = new ArrayList<>();
    StartOrder order = new StartOrder();
    order.start("storage", () -> {}, () -> log.add("stop storage"));
    assertThatThrownBy(() -> order.start("server", () -> {
      throw new IllegalStateException("port taken");
    }, () -> log.add("stop server"))).hasMessage("port taken");
    order.stopAll();
    assertThat(log).containsExactly("stop storage");
  }

  @Test
  void aSchedulerRunsOnANamedThreadUntilStopped() throws Exception {
    StartOrder order = new StartOrder();
    ScheduledExecutorService keeper = order.scheduler("keeper");
    assertThat(keeper.submit(() -> Thread.currentThread().getName()).get()).isEqualTo("sextant-keeper");
    order.stopAll();
    assertThat(keeper.isShutdown()).isTrue();
  }
}
