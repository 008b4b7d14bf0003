package io.sextant.receiver.event;

/** Why an event was refused: a stable reason tag for metrics and a detail for people. */
record Rejection(String reason, String detail) {}
