package io.sextant.server.assembly;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What a warm-up watches of the JIT compiler. Its accumulated time alone misses the slow
 * compilations that matter: HotSpot adds a compilation's time when it ends, and on a loaded
 * machine one optimizing compilation of a large query method took 3 s, so the compiler looked
 * idle for whole seconds while it worked; its queue shows them at once.
 */
interface JitCompiler {
  /** A compiler the warm-up does not watch. */
  JitCompiler NOT_WATCHED = new JitCompiler() {
    @Override
    public long millis() {
      return -1;
    }

    @Override
    public int optimizing() {
      return -1;
    }
  };

  /** Compiler time so far, summed over its threads, in ms; -1 when not measured. */
  long millis();

  /** Optimizing (C2) compilations running or queued now; -1 when not known. */
  int optimizing();

  /** This JVM's compiler: its time from the management bean, its queue from the {@code Compiler.queue} command. */
  static JitCompiler jvm() {
    CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
    boolean timed = bean != null && bean.isCompilationTimeMonitoringSupported();
    ObjectName commands;
    try {
      commands = new ObjectName("com.sun.management:type=DiagnosticCommand");
    } catch (JMException e) {
      throw new IllegalStateException(e);
    }
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    return new JitCompiler() {
      @Override
      public long millis() {
        return timed ? bean.getTotalCompilationTime() : -1;
      }

      @Override
      public int optimizing() {
        try {
          return optimizingTasks(String.valueOf(server.invoke(commands, "compilerQueue", null, null)));
        } catch (JMException | RuntimeException e) {
          return -1; // no diagnostic commands (not HotSpot, or jdk.management left out)
        }
      }
    };
  }

  /**
   * The C2 tasks in the {@code Compiler.queue} answer: lines of its "Current compiles" section a
   * C2 thread works on, and the lines of its "C2 compile queue" section.
   */
  static int optimizingTasks(String queue) {
    int tasks = 0;
    String section = "";
    for (String line : queue.split("\n")) {
      String l = line.strip();
      if (l.endsWith(":")) {
        section = l;
      } else if (section.startsWith("Current compiles") ? l.startsWith("C2 ")
          : section.startsWith("C2 ") && !l.isEmpty() && !l.equals("Empty")) {
        tasks++;
      }
    }
    return tasks;
  }
}
