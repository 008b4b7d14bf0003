package io.sextant.core.profiling;

import io.sextant.api.ebpf.ContinuousProfilingPolicy;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.CheckItem;
import io.sextant.api.ebpf.ContinuousProfilingPolicy.Target;
import io.sextant.api.storage.ManagedDocument;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * How a continuous-profiling policy is kept in the management store: kind {@value #KIND}, id = the
 * service id (one policy per service, as in SkyWalking), body = a small versioned binary encoding
 * in Base64. Written by the GraphQL mutation ({@code continuous.ContinuousProfilingQueries}), read by
 * Rover's policy polls on every collector ({@link StoredProfilingTasks}); it sits here, beside {@link
 * TaskDocuments}, so that {@code continuous} builds on this package and not the other way round.
 */
public final class PolicyDocuments {
  public static final String KIND = "continuous-profiling-policy";

  private static final int VERSION = 1;

  private PolicyDocuments() {}

  /**
   * The policy with these targets, in a canonical order (targets and their monitors in SkyWalking's
   * enum order), so that setting the same policy twice gives the same uuid and Rover sees no change.
   */
  public static ContinuousProfilingPolicy canonical(String serviceId, List<Target> targets) {
    List<Target> sorted = new ArrayList<>();
    for (Target t : targets) {
      List<CheckItem> items = new ArrayList<>(t.checkItems());
      items.sort(Comparator.comparingInt(i -> ContinuousProfilingPolicy.MONITOR_TYPES.indexOf(i.type())));
      sorted.add(new Target(t.targetType(), items));
    }
    sorted.sort(Comparator.comparingInt(t -> ContinuousProfilingPolicy.TARGET_TYPES.indexOf(t.targetType())));
    return new ContinuousProfilingPolicy(serviceId, uuidOf(sorted), sorted);
  }

  public static String encode(ContinuousProfilingPolicy p) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(p.serviceId());
      out.writeUTF(p.uuid());
      writeTargets(out, p.targets());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  public static ContinuousProfilingPolicy decode(String body) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(body)))) {
      int version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown continuous profiling policy encoding version " + version);
      }
      String serviceId = in.readUTF();
      String uuid = in.readUTF();
      int targetCount = in.readInt();
      List<ContinuousProfilingPolicy.Target> targets = new ArrayList<>(targetCount);
      for (int t = 0; t < targetCount; t++) {
        String targetType = in.readUTF();
        int itemCount = in.readInt();
        List<ContinuousProfilingPolicy.CheckItem> items = new ArrayList<>(itemCount);
        for (int i = 0; i < itemCount; i++) {
          String type = in.readUTF();
          String threshold = in.readUTF();
          int period = in.readInt();
          int count = in.readInt();
          List<String> uris = readNullableList(in);
          String regex = in.readBoolean() ? in.readUTF() : null;
          items.add(new ContinuousProfilingPolicy.CheckItem(type, threshold, period, count, uris, regex));
        }
        targets.add(new ContinuousProfilingPolicy.Target(targetType, items));
      }
      return new ContinuousProfilingPolicy(serviceId, uuid, targets);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("malformed continuous profiling policy document", e);
    }
  }

  public static ContinuousProfilingPolicy fromDocument(ManagedDocument d) {
    if (!KIND.equals(d.kind())) {
      throw new IllegalArgumentException("not a continuous profiling policy document: " + d.kind());
    }
    return decode(d.body());
  }

  /**
   * The hex SHA-512 of the targets' encoding (SkyWalking hashes its JSON form with SHA-512; Rover
   * only compares uuids for equality, so any content hash of the same length serves).
   */
  static String uuidOf(List<ContinuousProfilingPolicy.Target> targets) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writeTargets(out, targets);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-512").digest(bytes.toByteArray()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-512", e);
    }
  }

  private static void writeTargets(DataOutputStream out, List<ContinuousProfilingPolicy.Target> targets)
      throws IOException {
    out.writeInt(targets.size());
    for (ContinuousProfilingPolicy.Target t : targets) {
      out.writeUTF(t.targetType());
      out.writeInt(t.checkItems().size());
      for (ContinuousProfilingPolicy.CheckItem i : t.checkItems()) {
        out.writeUTF(i.type());
        out.writeUTF(i.threshold());
        out.writeInt(i.period());
        out.writeInt(i.count());
        writeNullableList(out, i.uriList());
        out.writeBoolean(i.uriRegex() != null);
        if (i.uriRegex() != null) {
          out.writeUTF(i.uriRegex());
        }
      }
    }
  }

  private static void writeNullableList(DataOutputStream out, List<String> values) throws IOException {
    out.writeInt(values == null ? -1 : values.size());
    if (values != null) {
      for (String v : values) {
        out.writeUTF(v);
      }
    }
  }

  private static List<String> readNullableList(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    List<String> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      values.add(in.readUTF());
    }
    return values;
  }
}
