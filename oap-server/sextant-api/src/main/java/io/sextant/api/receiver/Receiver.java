package io.sextant.api.receiver;

import io.grpc.ServerServiceDefinition;
import io.sextant.api.component.Component;
import java.util.List;

/**
 * A protocol family's receiver: the gRPC services it adds to the shared server (port 11800). It
 * only translates and pushes records into the {@link RecordSink} it was made with; {@link
 * #start()} and {@link #close()} are for receivers that own a background resource (e.g. a
 * Kubernetes watch).
 */
public interface Receiver extends Component {
  /** Short name, as in its configuration keys and self-metrics ({@code mesh}, {@code als}). */
  String name();

  List<ServerServiceDefinition> services();

  @Override
  default void close() {}
}
