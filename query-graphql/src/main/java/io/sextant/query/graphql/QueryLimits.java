package io.sextant.query.graphql;

/**
 * Bounds on one GraphQL request: nesting depth, field complexity (booster-ui batches dozens of
 * expressions in one request, so this is generous), and points in a queried duration.
 */
public record QueryLimits(int maxDepth, int maxComplexity, int maxDurationPoints) {}
