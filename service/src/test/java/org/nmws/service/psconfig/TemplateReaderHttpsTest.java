package org.nmws.service.psconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A template and its include read from a real HTTPS server on loopback (a certificate made here by keytool). */
class TemplateReaderHttpsTest {
    private static final Map<String, String> FILES = Map.of(
            "/mesh/main.json", "{\"includes\":[\"parts/pair.json\"],\"addresses\":{},\"groups\":{},\"tests\":{},"
                    + "\"tasks\":{\"rtt\":{\"group\":\"pair\",\"test\":\"rtt\",\"schedule\":\"often\"}}}",
            "/mesh/parts/pair.json", "{\"addresses\":{\"a\":{\"address\":\"10.3.0.1\"},\"b\":{\"address\":\"10.3.0.2\"}},"
                    + "\"groups\":{\"pair\":{\"type\":\"mesh\",\"addresses\":[{\"name\":\"a\"},{\"name\":\"b\"}]}},"
                    + "\"tests\":{\"rtt\":{\"type\":\"rtt\",\"spec\":{\"dest\":\"{% address[1] %}\"}}},"
                    + "\"schedules\":{\"often\":{\"repeat\":\"PT5M\"}},\"tasks\":{}}",
            "/broken/main.json", "{\"includes\":[\"missing.json\"],\"addresses\":{},\"groups\":{},\"tests\":{},\"tasks\":{}}");

    private HttpsServer server;
    private TemplateReader reader;
    private String base;

    @BeforeEach
    void serve() throws Exception {
        Path keystore = selfSignedKeystore();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(kmf.getKeyManagers(), null, null);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, tmf.getTrustManagers(), null);

        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
        server.createContext("/", exchange -> {
            String body = FILES.get(exchange.getRequestURI().getPath());
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : bytes.length);
            if (body != null) {
                exchange.getResponseBody().write(bytes);
            }
            exchange.close();
        });
        server.start();
        base = "https://127.0.0.1:" + server.getAddress().getPort();
        reader = new TemplateReader(HttpClient.newBuilder().sslContext(clientTls).build());
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aTemplateAndItsRelativeIncludeAreReadOverHttps() {
        TemplateReader.Read read = reader.read(base + "/mesh/main.json");
        assertEquals(List.of(base + "/mesh/main.json", base + "/mesh/parts/pair.json"), read.sources());
        Plan plan = new Planner(Set.of("10.3.0.1")::contains).plan(read.template());
        assertEquals(List.of("psconfig:rtt:a:b"), plan.runs().stream().map(Plan.Planned::name).toList());
    }

    @Test
    void aMissingIncludeRefusesTheTemplateNamingIt() {
        TemplateException e = assertThrows(TemplateException.class, () -> reader.read(base + "/broken/main.json"));
        assertEquals("template " + base + "/broken/missing.json: HTTP 404", e.getMessage());
    }

    @Test
    void aTemplateIsNotReadInTheClear() {
        TemplateException e = assertThrows(TemplateException.class, () -> reader.read("http://127.0.0.1:1/mesh.json"));
        assertTrue(e.getMessage().contains("only https URLs (or files) are read, not http"), e.getMessage());
    }

    private static Path selfSignedKeystore() throws Exception {
        Path ks = Files.createTempDirectory("nmws-psconfig-tls").resolve("server.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "psconfig", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-keystore", ks.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return ks;
    }
}
