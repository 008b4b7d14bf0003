package io.sextant.receiver.ebpf.accesslog;

import io.sextant.api.model.CallProtocol;
import io.sextant.api.model.DetectPoint;

/**
 * A connection as a stream last described it: its two named ends, the watched end's role, what it
 * carries (HTTP/1.x and HTTP/2 are HTTP, anything else TCP) and {@code TLS} when encrypted; behind
 * Istio's ztunnel, {@code meshTlsMode} is the mesh's view of it ({@code mTLS}, {@code TLS} or {@code
 * NONE}), else null.
 */
record Connection(Peers.End local, Peers.End remote, DetectPoint role, CallProtocol protocol, String tlsMode,
    String meshTlsMode) {}
