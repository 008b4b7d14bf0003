package io.sextant.receiver.ebpf.process;

import static io.sextant.receiver.ebpf.RoverArbitraries.offTheWire;
import static io.sextant.receiver.ebpf.RoverArbitraries.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.sextant.api.storage.ProcessMeta;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.skywalking.apm.network.common.v3.KeyStringValuePair;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFHostProcessMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFKubernetesProcessMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessEntityMetadata;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessProperties;
import org.apache.skywalking.apm.network.ebpf.profiling.process.v3.EBPFProcessReportList;

/**
 * Fuzzing the check of Rover's process reports (jqwik): {@code EBPFProcessReportList}s of host,
 * Kubernetes and unset processes with any names, layers, labels and properties, as they come off the
 * wire, also with bytes changed, have each entity refused with {@link ProcessEntities.Refused} or
 * turned into the {@link ProcessMeta} stored, as {@link ProcessService} does, never another exception;
 * what is stored keeps within the length bound. A longer run: {@code -Djqwik.tries.default=100000}
 * (docs/reliability.md).
 */
class ProcessEntitiesProperties {
  private static final int MAX_STRING_LENGTH = 1024;
  private final ProcessEntities entities = new ProcessEntities(MAX_STRING_LENGTH);

  @Property
  void everyEntityIsRefusedOrStored(@ForAll("reports") EBPFProcessReportList report) {
    for (EBPFProcessProperties p : report.getProcessesList()) {
      if (!p.hasHostProcess() && !p.hasK8SProcess()) {
        continue; // as SkyWalking, the service skips them
      }
      EBPFProcessEntityMetadata entity = p.hasHostProcess() ? p.getHostProcess().getEntity()
          : p.getK8SProcess().getEntity();
      List<KeyStringValuePair> properties = p.hasHostProcess() ? p.getHostProcess().getPropertiesList()
          : p.getK8SProcess().getPropertiesList();
      try {
        entities.check(entity, properties);
      } catch (ProcessEntities.Refused refused) {
        Statistics.collect(refused.reason);
        continue;
      }
      Statistics.collect("stored");
      ProcessMeta meta = ProcessEntities.process(entity, properties, report.getEbpfAgentID(), "VM", 29_000_000);
      assertThat(meta.id()).isEqualTo(ProcessEntities.processId(entity)).hasSize(64);
      assertThat(meta.labels()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(MAX_STRING_LENGTH));
      assertThat(meta.properties()).allSatisfy((k, v) -> assertThat(k.length() + v.length())
          .isLessThanOrEqualTo(2 * MAX_STRING_LENGTH));
    }
  }

  @Provide
  Arbitrary<EBPFProcessReportList> reports() {
    Arbitrary<String> layer = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of("MESH", "K8S_SERVICE", "OS_LINUX")),
        Tuple.of(1, text()));
    Arbitrary<EBPFProcessEntityMetadata> entity = Combinators.combine(layer, text(), text(), text(),
        text().list().ofMaxSize(3)).as((l, service, instance, process, labels) -> EBPFProcessEntityMetadata
            .newBuilder().setLayer(l).setServiceName(service).setInstanceName(instance).setProcessName(process)
            .addAllLabels(labels).build());
    Arbitrary<KeyStringValuePair> property = Combinators.combine(Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just("support_ebpf_profiling")), Tuple.of(2, text())), text())
        .as((k, v) -> KeyStringValuePair.newBuilder().setKey(k).setValue(v).build());
    Arbitrary<EBPFProcessProperties> process = Combinators.combine(Arbitraries.integers().between(0, 2), entity,
        property.list().ofMaxSize(3), Arbitraries.integers()).as((kind, e, props, pid) -> switch (kind) {
          case 0 -> EBPFProcessProperties.newBuilder().setHostProcess(EBPFHostProcessMetadata.newBuilder()
              .setEntity(e).addAllProperties(props).setPid(pid)).build();
          case 1 -> EBPFProcessProperties.newBuilder().setK8SProcess(EBPFKubernetesProcessMetadata.newBuilder()
              .setEntity(e).addAllProperties(props).setPid(pid)).build();
          default -> EBPFProcessProperties.getDefaultInstance();
        });
    Arbitrary<EBPFProcessReportList> report = Combinators.combine(process.list().ofMaxSize(4), text())
        .as((ps, agent) -> EBPFProcessReportList.newBuilder().addAllProcesses(ps).setEbpfAgentID(agent).build());
    return offTheWire(report, EBPFProcessReportList.parser());
  }
}
