package io.sextant.testkit.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificate authorities and the certificates they sign, made by a test: EC P-256 keys, PEM files
 * as cert-manager writes them ({@code tls.crt}, {@code tls.key} in PKCS#8, {@code ca.crt}).
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private TestCertificates() {}

  /** A new self-signed authority. */
  public static Authority authority(String name) {
    KeyPair keys = newKeys();
    X500Name subject = new X500Name("CN=" + name);
    X509v3CertificateBuilder b = builder(subject, subject, keys);
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Authority(subject, keys, sign(b, keys));
  }

  /** An authority and the certificates it issues. */
  public record Authority(X500Name name, KeyPair keys, X509Certificate certificate) {
    /** Writes this authority's certificate as PEM. */
    public Path writeCertificate(Path file) {
      return write(file, pem("CERTIFICATE", encoded(certificate)));
    }

    /**
     * Issues a certificate for {@code localhost} and 127.0.0.1, good for a server and a client,
     * written as {@code <name>.crt} and {@code <name>.key} under {@code dir}.
     */
    public Issued issue(String name, Path dir) {
      KeyPair leaf = newKeys();
      X509v3CertificateBuilder b = builder(name(), new X500Name("CN=" + name), leaf);
      try {
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        b.addExtension(Extension.extendedKeyUsage, false,
            new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      X509Certificate cert = sign(b, keys);
      Path certificateFile = write(dir.resolve(name + ".crt"), pem("CERTIFICATE", encoded(cert)));
      Path keyFile = write(dir.resolve(name + ".key"), pem("PRIVATE KEY", leaf.getPrivate().getEncoded()));
      return new Issued(cert, leaf, certificateFile, keyFile);
    }
  }

  /** A certificate, its keys and the PEM files they were written to. */
  public record Issued(X509Certificate certificate, KeyPair keys, Path certificateFile, Path keyFile) {}

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))), subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair issuerKeys) {
    try {
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair newKeys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] encoded(X509Certificate c) {
    try {
      return c.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }

  private static Path write(Path file, String content) {
    try {
      // Replaced whole, as a Secret's files are: a reader never sees half a file.
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, content, StandardCharsets.US_ASCII);
      return Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
