package io.sextant.server.security;

import com.linecorp.armeria.common.TlsKeyPair;
import com.linecorp.armeria.common.TlsProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ports' certificate, key and client CA, read from PEM files and read again when they change
 * (cert-manager renews in place). New connections get the new pair; open ones, streams included,
 * keep the session they have. A pair that does not match, or a file caught half-written, is
 * refused with a warning and the last good one stays in use; at start, a bad pair stops the start.
 */
final class ReloadingTls implements TlsProvider {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingTls.class);
  private final Path certificate;
  private final Path key;
  private final Path clientCa;
  private volatile TlsKeyPair pair;
  private volatile List<X509Certificate> trusted;
  /** The digest of the files last tried, good or not. */
  private byte[] tried;

  ReloadingTls(String certificateFile, String keyFile, String clientCaFile) {
    this.certificate = Path.of(certificateFile);
    this.key = Path.of(keyFile);
    this.clientCa = clientCaFile.isBlank() ? null : Path.of(clientCaFile);
    try {
      reload();
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException("TLS: cannot use " + certificateFile + " with " + keyFile
          + (clientCa == null ? "" : " and client CA " + clientCaFile) + ": " + e.getMessage(), e);
    }
  }

  @Override
  public TlsKeyPair keyPair(String hostname) {
    return pair;
  }

  @Override
  public List<X509Certificate> trustedCertificates(String hostname) {
    return trusted;
  }

  boolean asksForClientCertificates() {
    return clientCa != null;
  }

  /** Checks the files; called every {@code server.fileCheckSeconds}. */
  void refresh() {
    try {
      if (reload()) {
        X509Certificate leaf = pair.certificateChain().get(0);
        LOG.info("TLS: new certificate in use for new connections: {} (serial {}, valid until {})",
            leaf.getSubjectX500Principal().getName(), leaf.getSerialNumber().toString(16), leaf.getNotAfter());
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      LOG.warn("TLS: the certificate files changed but cannot be used, keeping the last good ones: {}",
          e.toString());
    }
  }

  /** Reads all files again; a pair already in use, or already refused, is not tried again. */
  private synchronized boolean reload() throws IOException, GeneralSecurityException {
    byte[] c = Files.readAllBytes(certificate);
    byte[] k = Files.readAllBytes(key);
    byte[] ca = clientCa == null ? new byte[0] : Files.readAllBytes(clientCa);
    byte[] digest = digest(c, k, ca);
    if (Arrays.equals(digest, tried)) {
      return false;
    }
    tried = digest;
    TlsKeyPair candidate = TlsKeyPair.of(new ByteArrayInputStream(k), new ByteArrayInputStream(c));
    checkMatches(candidate.privateKey(), candidate.certificateChain().get(0).getPublicKey());
    trusted = clientCa == null ? null : caCertificates(ca);
    pair = candidate;
    return true;
  }

  private static byte[] digest(byte[]... parts) throws GeneralSecurityException {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (byte[] p : parts) {
      sha.update((p.length + ":").getBytes(StandardCharsets.US_ASCII));
      sha.update(p);
    }
    return sha.digest();
  }

  private List<X509Certificate> caCertificates(byte[] pem) throws GeneralSecurityException {
    List<X509Certificate> certs = CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(pem)).stream().map(c -> (X509Certificate) c).toList();
    if (certs.isEmpty()) {
      throw new GeneralSecurityException(clientCa + " holds no certificate");
    }
    return certs;
  }

  /** A key that does not belong to the certificate would fail every handshake: sign and verify once. */
  private static void checkMatches(PrivateKey parsedKey, PublicKey parsedPublicKey) throws GeneralSecurityException {
    // Re-made by the JDK's own factory: a PEM reader may hand over another provider's key objects.
    String family = parsedKey.getAlgorithm().equals("ECDSA") ? "EC" : parsedKey.getAlgorithm();
    KeyFactory keys = KeyFactory.getInstance(family);
    PrivateKey privateKey = keys.generatePrivate(new PKCS8EncodedKeySpec(parsedKey.getEncoded()));
    PublicKey publicKey = keys.generatePublic(new X509EncodedKeySpec(parsedPublicKey.getEncoded()));
    String algorithm = switch (family) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      default -> family; // Ed25519, Ed448
    };
    byte[] probe = "sextant".getBytes(StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(privateKey);
    signer.update(probe);
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(publicKey);
    verifier.update(probe);
    if (!verifier.verify(signature)) {
      throw new GeneralSecurityException("the private key does not belong to the certificate");
    }
  }
}
