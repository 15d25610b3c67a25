package dev.ddpkit.ddp.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Self-signed certificates made at test time with the JDK's {@code keytool} (nothing secret is
 * committed, nothing expires in the repository): a key store for a TLS server, and a trust store
 * holding only that certificate for a client.
 */
final class TestCertificates {
  private static final char[] PASSWORD = "test-only".toCharArray();

  private final Path keyStore;

  private TestCertificates(Path keyStore) {
    this.keyStore = keyStore;
  }

  /**
   * Generates an EC key pair and a self-signed certificate for {@code cn} with the given subject
   * alternative names (keytool syntax, such as {@code dns:localhost,ip:127.0.0.1}).
   */
  static TestCertificates generate(Path dir, String cn, String san)
      throws IOException, InterruptedException {
    Path ks = dir.resolve(cn + ".p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "server",
            "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + cn, "-ext",
            "SAN=" + san, "-validity", "2", "-storetype", "PKCS12", "-keystore", ks.toString(),
            "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)))
        .redirectErrorStream(true)
        .start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(ks)) {
      p.destroyForcibly();
      throw new IllegalStateException("keytool failed: " + out);
    }
    return new TestCertificates(ks);
  }

  /** A server context presenting the certificate. */
  SSLContext serverContext() throws IOException, GeneralSecurityException {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(load(), PASSWORD);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return ctx;
  }

  /** A client context that trusts this certificate and nothing else. */
  SSLContext trustingContext() throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", load().getCertificate("server"));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  private KeyStore load() throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keyStore)) {
      ks.load(in, PASSWORD);
    }
    return ks;
  }
}
