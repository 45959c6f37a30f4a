package org.nmws.service.mesh;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.observation.Endpoint;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Sends a request for a path whose source is another point to that point, over SOAP 1.1 as
 * any NMWG client would, and hands back its answer (results and environment as the remote
 * point wrote them). The forwarded request names no source, so the remote point measures
 * from itself, and it carries a header that stops it forwarding again: no loops.
 */
public final class Forwarder {
    /** Set on forwarded requests; a request carrying it is never forwarded again. */
    public static final String FORWARDED_HEADER = "X-Nmws-Forwarded";
    private static final String NMWG = "http://ggf.org/ns/nmwg/base/2.0/";

    private final Mesh mesh;
    private final String self;
    private final Parser xml;
    private final int maxAnswerBytes;
    private final Duration timeout;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** How an answer is parsed: the service's hardened parser, as for any client's request. */
    public interface Parser {
        Document parse(byte[] bytes) throws Exception;
    }

    /** Why a forwarded request got no answer; the caller reports it as a failed measurement. */
    public static final class ForwardException extends Exception {
        ForwardException(String message) {
            super(message);
        }
    }

    public Forwarder(Mesh mesh, String self, Parser xml, Duration timeout) {
        this(mesh, self, xml, timeout, 16 << 20);
    }

    /** @param maxAnswerBytes the most of a point's answer read (the parser's own size limit) */
    public Forwarder(Mesh mesh, String self, Parser xml, Duration timeout, int maxAnswerBytes) {
        this.mesh = mesh;
        this.self = self;
        this.xml = xml;
        this.timeout = timeout;
        this.maxAnswerBytes = maxAnswerBytes;
    }

    /** The other point a source names, if it is one. */
    public Optional<Mesh.Point> remote(String srcHost) {
        return mesh.point(srcHost).filter(p -> !p.name().equals(self));
    }

    /**
     * Runs the request at the point and returns its nmwg:message.
     *
     * @param messageType MeasurementRequest or SetupDataRequest
     */
    public Element forward(Mesh.Point p, String messageType, String eventType, Endpoint dst, Map<String, String> parameters)
            throws ForwardException {
        StringBuilder params = new StringBuilder();
        parameters.forEach((k, v) -> params.append("<nmwg:parameter name=\"").append(escape(k)).append("\">")
                .append(escape(v)).append("</nmwg:parameter>"));
        String message = "<nmwg:message xmlns:nmwg=\"" + NMWG + "\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" "
                + "type=\"" + messageType + "\" id=\"forwarded\"><nmwg:metadata id=\"m\"><nmwg:subject id=\"s\">"
                + "<nmwgt:endPointPair><nmwgt:dst value=\"" + escape(dst.host()) + "\""
                + (dst.type() != null ? " type=\"" + escape(dst.type()) + "\"" : "") + "/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>" + escape(eventType) + "</nmwg:eventType><nmwg:parameters id=\"p\">" + params
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d\" metadataIdRef=\"m\"/></nmwg:message>";
        String envelope = "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>" + message
                + "</s:Body></s:Envelope>";
        // The NMWG v2 SOAPAction, which perfSONAR's services route by; nmws routes by the body.
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(p.soapAddress()))
                .timeout(timeout).header("Content-Type", "text/xml; charset=utf-8")
                .header("SOAPAction", "\"http://ggf.org/ns/nmwg/base/2.0/message/\"")
                .header(FORWARDED_HEADER, self).POST(HttpRequest.BodyPublishers.ofString(envelope));
        if (p.apiKey() != null && !p.apiKey().isBlank()) {
            b.header("X-Api-Key", p.apiKey());
        }
        HttpResponse<java.io.InputStream> r;
        byte[] body;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (java.io.InputStream in = r.body()) {
                if (r.statusCode() != 200) {
                    throw new ForwardException("point " + p.name() + " answered HTTP " + r.statusCode()
                            + (r.statusCode() == 401 || r.statusCode() == 403 ? " (give the mesh file its apiKey)" : ""));
                }
                // The request's timeout ends with the headers: a point trickling its answer is
                // cut when the time is up (closing the stream ends the read), and no more than
                // the parser would accept is read (one byte past it, so it reports the size).
                java.util.concurrent.CompletableFuture<Void> watchdog = java.util.concurrent.CompletableFuture.runAsync(() -> {
                    try {
                        in.close();
                    } catch (IOException ignored) {
                        // already closed
                    }
                }, java.util.concurrent.CompletableFuture.delayedExecutor(timeout.toMillis(),
                        java.util.concurrent.TimeUnit.MILLISECONDS));
                try {
                    body = in.readNBytes(maxAnswerBytes + 1);
                } finally {
                    watchdog.cancel(false);
                }
            }
        } catch (IOException e) {
            throw new ForwardException("point " + p.name() + " (" + p.url() + ") could not be reached: "
                    + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ForwardException("interrupted forwarding to point " + p.name());
        }
        // The remote answer is parsed as carefully as any client's request.
        Document doc;
        try {
            doc = xml.parse(body);
        } catch (Exception e) {
            throw new ForwardException("point " + p.name() + " answered what is not an acceptable NMWG message: " + e.getMessage());
        }
        NodeList messages = doc.getElementsByTagNameNS(NMWG, "message");
        if (messages.getLength() != 1) {
            throw new ForwardException("point " + p.name() + " answered without an nmwg:message");
        }
        return (Element) messages.item(0);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
