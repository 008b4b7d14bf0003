package io.sextant.api.ebpf;

import io.sextant.api.storage.StoredRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * How schedules are kept: records of kind {@value #KIND}, entity = the task id, id = the schedule id,
 * time = the schedule's start (constant, so a rewrite with a later end lands on the same record, in
 * the same daily index, and replaces it).
 */
public final class ProfilingSchedules {
  public static final String KIND = "ebpf-profiling-schedule";

  private static final int VERSION = 1;

  private ProfilingSchedules() {}

  /** SkyWalking's schedule id: hex SHA-256 of {@code "<taskId>_<processId>_<startTime>"}. */
  public static String scheduleId(String taskId, String processId, long startTime) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      byte[] key = (taskId + "_" + processId + "_" + startTime).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(sha.digest(key));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  public static StoredRecord toRecord(ProfilingSchedule s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(160);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(s.taskId());
      out.writeUTF(s.processId());
      out.writeLong(s.startTime());
      out.writeLong(s.endTime());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new StoredRecord(KIND, s.scheduleId(), s.taskId(), s.startTime(), List.of(), bytes.toByteArray());
  }

  public static ProfilingSchedule fromRecord(StoredRecord r) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(r.body()))) {
      int version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown profiling schedule encoding version " + version);
      }
      return new ProfilingSchedule(r.id(), in.readUTF(), in.readUTF(), in.readLong(), in.readLong());
    } catch (IOException e) {
      throw new IllegalArgumentException("malformed profiling schedule record " + r.id(), e);
    }
  }
}
