package io.sextant.receiver.mesh;

/** Why a record or message was refused: a stable reason tag for metrics and a detail for people. */
record Rejection(String reason, String detail) {}
