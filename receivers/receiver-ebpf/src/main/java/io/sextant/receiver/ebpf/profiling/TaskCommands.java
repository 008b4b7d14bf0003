package io.sextant.receiver.ebpf.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import java.util.List;
import java.util.UUID;
import org.apache.skywalking.apm.network.common.v3.Command;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;

/**
 * The {@code EBPFProfilingTaskQuery} command SkyWalking 10.1 sends Rover for a task ({@code
 * EBPFProfilingTaskCommand}): the same argument names, order and formats; {@code ExtensionConfigJSON}
 * is the stored sampling rules, or {@code null} when there are none. Unlike SkyWalking 10.1, whose
 * conversion copies {@code When5xx} into {@code When4xx}, a rule's {@code When4xx} is the one given.
 */
final class TaskCommands {
  static final String NAME = "EBPFProfilingTaskQuery";

  private TaskCommands() {}

  static Command command(ProfilingTask t, List<String> processIds) {
    Command.Builder c = Command.newBuilder().setCommand(NAME)
        .addArgs(arg("SerialNumber", UUID.randomUUID().toString()))
        .addArgs(arg("TaskId", t.taskId()))
        .addArgs(arg("ProcessId", String.join(",", processIds)))
        .addArgs(arg("TaskUpdateTime", String.valueOf(t.lastUpdateTime())))
        .addArgs(arg("TriggerType", t.triggerType()))
        .addArgs(arg("TargetType", t.targetType()))
        .addArgs(arg("TaskStartTime", String.valueOf(t.startTime())))
        .addArgs(arg("ExtensionConfigJSON", t.extensionConfigJson().isEmpty() ? "null" : t.extensionConfigJson()));
    if (ProfilingTask.FIXED_TIME.equals(t.triggerType())) {
      c.addArgs(arg("FixedTriggerDuration", String.valueOf(t.fixedTriggerDurationSeconds())));
    }
    return c.build();
  }

  private static KeyStringValuePair arg(String key, String value) {
    return KeyStringValuePair.newBuilder().setKey(key).setValue(value).build();
  }
}
