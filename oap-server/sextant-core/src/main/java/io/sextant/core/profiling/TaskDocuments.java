package io.sextant.core.profiling;

import io.sextant.api.ebpf.ProfilingTask;
import io.sextant.api.storage.ManagedDocument;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * How a profiling task is kept in the management store: kind {@value #KIND}, id = the task id, body
 * = a small versioned binary encoding in Base64. Tasks are documents (not records) because keeping
 * a network task alive changes it, and every change must name the version it replaces.
 */
public final class TaskDocuments {
  public static final String KIND = "ebpf-profiling-task";

  private static final int VERSION = 1;

  private TaskDocuments() {}

  public static String encode(ProfilingTask t) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(t.taskId());
      out.writeUTF(t.serviceId());
      out.writeUTF(t.instanceId());
      out.writeUTF(t.processId());
      writeList(out, t.processLabels());
      out.writeUTF(t.targetType());
      out.writeUTF(t.triggerType());
      out.writeLong(t.startTime());
      out.writeLong(t.fixedTriggerDurationSeconds());
      out.writeLong(t.createTime());
      out.writeLong(t.lastUpdateTime());
      writeLong(out, t.extensionConfigJson());
      out.writeInt(t.causes().size());
      for (ProfilingTask.Cause c : t.causes()) {
        out.writeUTF(c.type());
        out.writeUTF(c.uriRegex());
        out.writeUTF(c.uriPath());
        out.writeDouble(c.threshold());
        out.writeDouble(c.current());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  public static ProfilingTask decode(String body) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(body)))) {
      int version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown profiling task encoding version " + version);
      }
      String taskId = in.readUTF();
      String serviceId = in.readUTF();
      String instanceId = in.readUTF();
      String processId = in.readUTF();
      List<String> labels = readList(in);
      String targetType = in.readUTF();
      String triggerType = in.readUTF();
      long startTime = in.readLong();
      long duration = in.readLong();
      long createTime = in.readLong();
      long lastUpdateTime = in.readLong();
      String extension = readLong(in);
      int causeCount = in.readInt();
      List<ProfilingTask.Cause> causes = new ArrayList<>(causeCount);
      for (int i = 0; i < causeCount; i++) {
        causes.add(new ProfilingTask.Cause(in.readUTF(), in.readUTF(), in.readUTF(), in.readDouble(),
            in.readDouble()));
      }
      return new ProfilingTask(taskId, serviceId, instanceId, processId, labels, targetType, triggerType,
          startTime, duration, createTime, lastUpdateTime, extension, causes);
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed profiling task document", e);
    }
  }

  public static ProfilingTask fromDocument(ManagedDocument d) {
    if (!KIND.equals(d.kind())) {
      throw new IllegalArgumentException("not a profiling task document: " + d.kind());
    }
    return decode(d.body());
  }

  private static void writeList(DataOutputStream out, List<String> values) throws IOException {
    out.writeInt(values.size());
    for (String v : values) {
      out.writeUTF(v);
    }
  }

  private static List<String> readList(DataInputStream in) throws IOException {
    int n = in.readInt();
    List<String> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      values.add(in.readUTF());
    }
    return values;
  }

  /** A string that may pass writeUTF's 64 KB limit (sampling rules are user input). */
  private static void writeLong(DataOutputStream out, String s) throws IOException {
    byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readLong(DataInputStream in) throws IOException {
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return new String(b, java.nio.charset.StandardCharsets.UTF_8);
  }
}
