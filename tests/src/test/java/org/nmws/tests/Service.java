package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import org.nmws.schema.NmwgSchemas;
import org.nmws.service.NmwsApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The real service on a random port, and raw HTTP to it as other clients send it. */
final class Service implements AutoCloseable {
    static final String NMWG = "http://ggf.org/ns/nmwg/base/2.0/";
    static final String SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
    static final String SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

    final ConfigurableApplicationContext context;
    final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Service(ConfigurableApplicationContext context) {
        this.context = context;
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        this.baseUrl = "http://127.0.0.1:" + port;
    }

    static Service start(Path dataDir, String... extraArgs) {
        return start(dataDir, 0, extraArgs);
    }

    /** On a given port (0: any free one), for peers that must know it beforehand. */
    static Service start(Path dataDir, int port, String... extraArgs) {
        String[] args = new String[extraArgs.length + 2];
        args[0] = "--server.port=" + port;
        args[1] = "--nmws.data-dir=" + dataDir;
        System.arraycopy(extraArgs, 0, args, 2, extraArgs.length);
        return new Service(new SpringApplicationBuilder(NmwsApplication.class).run(args));
    }

    /** POSTs as perfSONAR's Perl client does: text/xml without charset, unquoted SOAPAction. */
    HttpResponse<String> soap11(String body) throws Exception {
        String env = "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"" + SOAP11 + "\"><SOAP-ENV:Header/><SOAP-ENV:Body>"
                + body + "</SOAP-ENV:Body></SOAP-ENV:Envelope>";
        return post("/services/MeasurementService", env, "text/xml", "http://ggf.org/ns/nmwg/base/2.0/message/");
    }

    HttpResponse<String> soap12(String body) throws Exception {
        String env = "<env:Envelope xmlns:env=\"" + SOAP12 + "\"><env:Body>" + body + "</env:Body></env:Envelope>";
        return post("/services/MeasurementService12", env, "application/soap+xml; charset=utf-8", null);
    }

    HttpResponse<String> post(String path, String body, String contentType, String soapAction) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(Duration.ofSeconds(120))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (soapAction != null) {
            b.header("SOAPAction", soapAction);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> delete(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The nmwg:message in a response (SOAP or plain), checked against the project's XSDs. */
    static Element validatedMessage(String responseBody) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(responseBody.getBytes(StandardCharsets.UTF_8)));
            NodeList nl = doc.getElementsByTagNameNS(NMWG, "message");
            if (nl.getLength() != 1) {
                fail("expected one nmwg:message in the response, got " + nl.getLength() + ":\n" + responseBody);
            }
            Element message = (Element) nl.item(0);
            NmwgSchemas.schema().newValidator().validate(new DOMSource(message));
            return message;
        } catch (Exception e) {
            fail("response is not a valid NMWG message: " + e.getMessage() + "\n" + responseBody);
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
