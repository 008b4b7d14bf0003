package io.sextant.core.query.mqe;

/** Shape of an expression result, as in SkyWalking's {@code ExpressionResultType}. */
public enum ResultType { UNKNOWN, SINGLE_VALUE, TIME_SERIES_VALUES, SORTED_LIST, RECORD_LIST }
