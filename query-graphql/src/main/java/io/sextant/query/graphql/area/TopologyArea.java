package io.sextant.query.graphql.area;

import static io.sextant.query.graphql.Fetchers.duration;
import static io.sextant.query.graphql.Fetchers.field;
import static io.sextant.query.graphql.Fetchers.safe;

import graphql.schema.DataFetchingEnvironment;
import graphql.schema.idl.RuntimeWiring;
import io.sextant.api.id.EntityIds;
import io.sextant.core.query.TopologyQueries;
import io.sextant.core.query.TopologyView.Call;
import io.sextant.core.query.TopologyView.InstanceTopology;
import io.sextant.core.query.TopologyView.Node;
import io.sextant.core.query.TopologyView.ProcessNode;
import io.sextant.core.query.TopologyView.ProcessTopology;
import io.sextant.core.query.TopologyView.Topology;
import io.sextant.query.graphql.Fetchers;
import io.sextant.query.graphql.QueryLimits;
import io.sextant.query.graphql.SchemaArea;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * topology.graphqls. Mesh data has no endpoint relations (as in SkyWalking), so endpoint
 * dependencies are empty; process topology is drawn from Rover's network-profiling meters.
 */
public record TopologyArea(TopologyQueries q, QueryLimits limits) implements SchemaArea {
  @Override
  public void wire(RuntimeWiring.Builder w) {
    w.type("Query", t -> t
        .dataFetcher("getGlobalTopology", safe(env -> q.globalTopology(duration(env, limits),
            env.getArgument("layer"))))
        .dataFetcher("getServiceTopology", safe(env -> services(env, List.of(env.<String>getArgument("serviceId")))))
        .dataFetcher("getServiceTopologyByName", safe(env ->
            services(env, List.of(EntityConditions.serviceId(env.getArgument("service"))))))
        .dataFetcher("getServicesTopology", safe(env -> services(env, env.getArgument("serviceIds"))))
        .dataFetcher("getServicesTopologyByNames", safe(env -> services(env,
            env.<List<Map<String, Object>>>getArgument("services").stream().map(EntityConditions::serviceId).toList())))
        .dataFetcher("getServiceInstanceTopology", safe(env ->
            instances(env, env.getArgument("clientServiceId"), env.getArgument("serverServiceId"))))
        .dataFetcher("getServiceInstanceTopologyByName", safe(env -> instances(env,
            EntityConditions.serviceId(env.getArgument("clientService")),
            EntityConditions.serviceId(env.getArgument("serverService")))))
        .dataFetcher("getEndpointDependencies", safe(env -> endpoint(env, env.getArgument("endpointId"))))
        .dataFetcher("getEndpointDependenciesByName", safe(env ->
            endpoint(env, EntityConditions.endpointId(env.getArgument("endpoint")))))
        .dataFetcher("getProcessTopology", safe(env -> processes(env, env.getArgument("serviceInstanceId"))))
        .dataFetcher("getProcessTopologyByName", safe(env ->
            processes(env, EntityConditions.instanceId(env.getArgument("instance")))))
        .dataFetcher("getEndpointTopology", safe(env -> {
          EntityIds.parseChildId(env.getArgument("endpointId"));
          duration(env, limits);
          return new Topology(List.of(), List.of());
        })));
    w.type("Node", t -> t.dataFetcher("id", field(Node::id)).dataFetcher("name", field(Node::name))
        .dataFetcher("type", field(Node::type)).dataFetcher("isReal", field(Node::isReal))
        .dataFetcher("layers", field(Node::layers)));
    w.type("ProcessTopology", t -> t.dataFetcher("nodes", field(ProcessTopology::nodes))
        .dataFetcher("calls", field(ProcessTopology::calls)));
    w.type("ProcessNode", t -> t.dataFetcher("id", field(ProcessNode::id))
        .dataFetcher("serviceId", field(ProcessNode::serviceId))
        .dataFetcher("serviceName", field(ProcessNode::serviceName))
        .dataFetcher("serviceInstanceId", field(ProcessNode::serviceInstanceId))
        .dataFetcher("serviceInstanceName", field(ProcessNode::serviceInstanceName))
        .dataFetcher("name", field(ProcessNode::name)).dataFetcher("isReal", field(ProcessNode::isReal)));
    w.type("Call", t -> t.dataFetcher("id", field(Call::id)).dataFetcher("source", field(Call::source))
        .dataFetcher("target", field(Call::target)).dataFetcher("detectPoints", field(Call::detectPoints))
        .dataFetcher("sourceComponents", field(Call::sourceComponents))
        .dataFetcher("targetComponents", field(Call::targetComponents)));
  }

  private Topology services(DataFetchingEnvironment env, List<String> ids) {
    ids.forEach(Fetchers::selectsService); // an empty id matches nothing, as in SkyWalking
    Set<String> wanted = new HashSet<>(ids);
    return q.serviceTopology(duration(env, limits), wanted::contains);
  }

  private InstanceTopology instances(DataFetchingEnvironment env, String client, String server) {
    Fetchers.selectsService(client);
    Fetchers.selectsService(server);
    return q.instanceTopology(client, server, duration(env, limits));
  }

  private Map<String, Object> endpoint(DataFetchingEnvironment env, String endpointId) {
    EntityIds.parseChildId(endpointId);
    duration(env, limits);
    return Map.of("nodes", List.of(), "calls", List.<Call>of());
  }

  private ProcessTopology processes(DataFetchingEnvironment env, String instanceId) {
    if (instanceId == null || instanceId.isEmpty()) {
      duration(env, limits);
      return new ProcessTopology(List.of(), List.of()); // no instance selected, as SkyWalking
    }
    EntityIds.parseChildId(instanceId);
    return q.processTopology(instanceId, duration(env, limits));
  }
}
