package io.sextant.api.model;

/**
 * What SkyWalking Rover saw on a connection: one of the socket operations it traces in the kernel,
 * or one HTTP request and response it decoded from the bytes.
 */
public enum KernelOperation {
  CONNECT,
  ACCEPT,
  CLOSE,
  READ,
  WRITE,
  HTTP
}
