package io.sextant.server.dashboards;

import java.util.Map;

/** The shipped dashboards' contract on the embedded in-memory store. */
class DashboardContractIT extends DashboardContract {
  @Override
  protected Map<String, String> storage() {
    return Map.of();
  }
}
