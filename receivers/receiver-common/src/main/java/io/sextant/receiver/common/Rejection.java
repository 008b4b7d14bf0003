package io.sextant.receiver.common;

/**
 * Why one input was refused: a stable {@code reason} (the self-metrics' label, e.g. {@code
 * string_too_long}) and a {@code detail} for the client's log. Validators return it instead of
 * throwing, so that a bad input costs no stack trace.
 */
public record Rejection(String reason, String detail) {}
