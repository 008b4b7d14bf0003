package io.sextant.core.spool;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Collectors sharing a spool directory take over only dead runs: a run directory whose lock a live
 * process holds (another JVM, or another spool of this one) is left alone, and taken over once
 * its owner is gone. {@code SpoolRecoveryTest} checks the totals of runs killed in this JVM.
 */
class SpoolLockTest {
  @TempDir
  Path dir;

  private Spool spool(String writerId) {
    return new Spool(new SpoolConfig(dir, 1 << 20, SpoolConfig.Fsync.NEVER, 1000), writerId, new SimpleMeterRegistry());
  }

  private static List<String> writers(List<Spool.DeadRun> runs) {
    return runs.stream().map(Spool.DeadRun::writerId).toList();
  }

  @Test
  void aRunOfThisJvmIsLiveUntilItsLocksGoAndATakenOverRunIsTheTakersUntilItEnds() {
    Spool first = spool("c@1");
    try (Spool second = spool("c@2")) {
      assertThat(writers(second.deadRuns())).as("the first lives").isEmpty();
      first.abandon(); // killed
      assertThat(writers(second.deadRuns())).containsExactly("c@1");
      try (Spool third = spool("c@3")) {
        assertThat(writers(third.deadRuns())).as("c@1 is the second's, the second lives").isEmpty();
        second.abandon();
        assertThat(writers(third.deadRuns())).containsExactly("c@1", "c@2");
      }
    }
  }

  @Test
  @Timeout(60)
  void aRunLockedByAnotherProcessIsLeftAloneAndTakenOverOnceThatProcessIsKilled() throws Exception {
    Process holder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx32m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        Holder.class.getName(), dir.toString()).redirectErrorStream(true).start();
    try (Spool mine = spool("c@2")) {
      List<String> said = new ArrayList<>();
      BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      for (String line = out.readLine(); !"locked".equals(line); line = out.readLine()) {
        assertThat(line).as("the holder's output: %s", said).isNotNull();
        said.add(line);
      }
      assertThat(writers(mine.deadRuns())).as("the other process lives").isEmpty();
      holder.destroyForcibly(); // SIGKILL: the OS releases its lock
      assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(writers(mine.deadRuns())).containsExactly("other@1");
    } finally {
      holder.destroyForcibly();
    }
  }

  /** A process holding a run of the spool directory given as its argument until it is killed. */
  public static final class Holder {
    public static void main(String[] args) throws Exception {
      Spool spool = new Spool(new SpoolConfig(Path.of(args[0]), 1 << 20, SpoolConfig.Fsync.NEVER, 1000), "other@1",
          new SimpleMeterRegistry());
      System.out.println("locked");
      System.out.flush();
      System.in.read(); // until killed (or the test's end closes the pipe)
      spool.close();
    }
  }
}
