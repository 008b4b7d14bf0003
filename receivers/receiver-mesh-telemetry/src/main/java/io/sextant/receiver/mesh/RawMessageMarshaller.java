package io.sextant.receiver.mesh;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Hands a request message to the receiver as its bytes, so that {@link WireMetric} reads them
 * without protobuf's parser decoding every string first. The message's size is bounded by the
 * server's wire limit ({@code server.maxGrpcMessageBytes}) before it gets here.
 */
final class RawMessageMarshaller implements MethodDescriptor.Marshaller<byte[]> {
  @Override
  public InputStream stream(byte[] value) {
    return new ByteArrayInputStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try (stream) {
      // gRPC's deframed streams know their length: one exact read, no growing buffer.
      byte[] bytes = stream.readNBytes(Math.max(0, stream.available()));
      int next = stream.read();
      if (next < 0) {
        return bytes;
      }
      ByteArrayOutputStream all = new ByteArrayOutputStream(bytes.length + 256);
      all.write(bytes);
      all.write(next);
      stream.transferTo(all);
      return all.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
