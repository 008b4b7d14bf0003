package io.sextant.receiver.als;

import java.util.List;

/**
 * Configuration of the ALS receiver: naming labels, endpoint grouping rules and budgets, and the
 * longest name accepted.
 */
public record AlsLimits(
    List<String> serviceNameLabels,
    String endpointRules,
    int endpointBudgetPerService,
    int maxServices,
    int maxStringLength) {}
