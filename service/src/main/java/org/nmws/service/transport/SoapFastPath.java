package org.nmws.service.transport;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.nmws.service.nmwg.MessageHandler;
import org.nmws.service.nmwg.SafeXml;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.security.Callers;
import javax.xml.stream.XMLStreamException;
import org.apache.cxf.staxutils.StaxUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The common SOAP request answered without CXF's chain (issue 25): a POST to either endpoint
 * of an Envelope of the endpoint's version, with no Header, whose Body holds one nmwg:message,
 * from a caller the security filters gave the read role. The body, already read and checked
 * as UTF-8 by {@code RequestBodies}, is read into a DOM by CXF's own reader (as its chain would),
 * the handler's answer is written by JAXB straight into the response between the envelope's
 * start and end, and nothing else runs: CXF's interceptor chain, WS-Policy and its writer cost
 * an Echo over SOAP a third more CPU than this path (docs/benchmarks.md). Everything else (a
 * header, WS-Security, a v1 or cost request, the cost action, another charset or content type,
 * a body the scan is not sure of or the reader refuses, a GET of the WSDL) goes on to CXF
 * unchanged, which words every refusal; the answers of both paths are the same document
 * (SoapFastPathTest). Written by hand because no SOAP stack offers a path this narrow.
 */
public final class SoapFastPath extends OncePerRequestFilter {
    /** The request attribute that holds the body {@code RequestBodies} read and checked (a byte[]). */
    public static final String BODY = SoapFastPath.class.getName() + ".body";

    private static final Logger log = LoggerFactory.getLogger(SoapFastPath.class);
    /** The WSDL's transferCost action: a request naming it is CXF's, which routes by action. */
    static final String COST_ACTION = "http://nmws.org/ns/cost/1.0/transferCost";

    /** A SOAP version as this path writes it: CXF's own envelope prefix and content type. */
    private enum Version {
        SOAP11("http://schemas.xmlsoap.org/soap/envelope/", "text/xml", "text/xml;charset=UTF-8"),
        SOAP12("http://www.w3.org/2003/05/soap-envelope", "application/soap+xml", "application/soap+xml;charset=UTF-8");

        final String ns;
        final String requestType;
        final String responseType;
        final byte[] open;
        final byte[] close;

        Version(String ns, String requestType, String responseType) {
            this.ns = ns;
            this.requestType = requestType;
            this.responseType = responseType;
            this.open = ("<soap:Envelope xmlns:soap=\"" + ns + "\"><soap:Body>").getBytes(StandardCharsets.US_ASCII);
            this.close = "</soap:Body></soap:Envelope>".getBytes(StandardCharsets.US_ASCII);
        }
    }

    private final String soap11Path;
    private final String soap12Path;
    private final MessageHandler handler;
    private final Callers callers;
    private final io.micrometer.core.instrument.Counter answered;
    private final java.util.Map<String, Object> limits;

    SoapFastPath(String servletPath, MessageHandler handler, Callers callers, io.micrometer.core.instrument.MeterRegistry meters,
                 java.util.Map<String, Object> limits) {
        String base = servletPath.replaceAll("/+$", "");
        this.soap11Path = base + "/MeasurementService";
        this.soap12Path = base + "/MeasurementService12";
        this.handler = handler;
        this.callers = callers;
        this.limits = java.util.Map.copyOf(limits);
        this.answered = io.micrometer.core.instrument.Counter.builder("nmws.soap.fast.path")
                .description("SOAP requests answered without CXF's chain (the rest go through it)").register(meters);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Element message = message(request);
        if (message == null) {
            chain.doFilter(request, response);
            return;
        }
        Version v = version(request);
        answered.increment();
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(v.responseType);
        // JAXB writes in kilobyte pieces: each through the response's wrappers was a tenth of a large answer
        OutputStream out = new java.io.BufferedOutputStream(response.getOutputStream(), 8192);
        try {
            out.write(v.open);
            handler.handleTo(message, callers.current(), out);
            out.write(v.close);
            out.flush();
        } catch (RuntimeException e) {
            if (response.isCommitted()) {
                throw e; // part of the answer went out (or the client went away): the connection ends
            }
            // what CXF answers a Provider that throws: a Server (1.2: Receiver) fault, when nothing was sent yet
            log.error("SOAP request failed in its handler", e);
            response.resetBuffer(); // what the buffer above holds is dropped with it
            response.setStatus(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            response.getOutputStream().write(fault(v, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
    }

    /** The body's nmwg:message when this path answers the request, else null (CXF answers it). */
    private Element message(HttpServletRequest request) {
        if (!(request.getAttribute(BODY) instanceof byte[] body) || !"POST".equals(request.getMethod())
                || request.getQueryString() != null) {
            return null;
        }
        Version v = version(request);
        String type = request.getContentType();
        if (v == null || type == null || !mediaType(type).equals(v.requestType) || costAction(request, type)) {
            return null;
        }
        String charset = charset(type);
        if (charset != null && !charset.equals("UTF-8") && !charset.equals("UTF8")) {
            return null;
        }
        // the read role is the one the WS-Security interceptor asks of a SOAP caller; without it CXF refuses in its words
        Authentication who = SecurityContextHolder.getContext().getAuthentication();
        if (who == null || who.getAuthorities().stream().noneMatch(a -> "ROLE_READ".equals(a.getAuthority()))) {
            return null;
        }
        if (!EnvelopeScan.surelyHeaderlessOneBodyElement(body, body.length, charset, v.ns)) {
            return null;
        }
        if (SafeXml.mayHoldTooManyElements(body)) {
            return null; // CXF's reader refuses an element bomb with its own limits before a tree exists
        }
        Document doc;
        try {
            // CXF's own reader and DOM builder, as its chain reads the body (Woodstox, DTDs off):
            // the JDK's DOM parser took twice as long for an Echo
            // as CXF reads it: UTF-8 whatever the declaration says (RequestBodies checked the bytes), and
            // the endpoint's own limits (TransportConfig.limits), so what CXF refuses is refused here too
            javax.xml.stream.XMLStreamReader reader = StaxUtils.configureReader(
                    StaxUtils.createXMLStreamReader(new ByteArrayInputStream(body), "UTF-8"), null,
                    (Integer) limits.get("org.apache.cxf.stax.maxElementDepth"),
                    (Integer) limits.get("org.apache.cxf.stax.maxAttributeCount"),
                    (Integer) limits.get("org.apache.cxf.stax.maxAttributeSize"),
                    (Integer) limits.get("org.apache.cxf.stax.maxTextLength"),
                    (Long) limits.get("org.apache.cxf.stax.maxElementCount"),
                    (Long) limits.get("org.apache.cxf.stax.maxXMLCharacters"));
            doc = StaxUtils.read(reader);
        } catch (XMLStreamException | RuntimeException e) {
            return null; // CXF's reader refuses it in its own words
        }
        Element root = doc.getDocumentElement();
        Element bodyElement = firstElement(root);
        Element message = bodyElement == null ? null : firstElement(bodyElement);
        return message != null && Namespaces.BASE.equals(message.getNamespaceURI()) && "message".equals(message.getLocalName())
                ? message : null;
    }

    private Version version(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return path.equals(soap11Path) ? Version.SOAP11 : path.equals(soap12Path) ? Version.SOAP12 : null;
    }

    private static Element firstElement(Element parent) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeType() == Node.ELEMENT_NODE) {
                return (Element) n;
            }
        }
        return null;
    }

    private static String mediaType(String contentType) {
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    /** The charset parameter, upper case, or null. */
    private static String charset(String contentType) {
        for (String part : contentType.split(";")) {
            String p = part.trim();
            if (p.regionMatches(true, 0, "charset=", 0, 8)) {
                return p.substring(8).trim().replace("\"", "").toUpperCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** Whether the request names the cost operation's action (SOAPAction, or SOAP 1.2's action parameter). */
    private static boolean costAction(HttpServletRequest request, String contentType) {
        String action = request.getHeader("SOAPAction");
        if (action != null && action.contains(COST_ACTION)) {
            return true;
        }
        return contentType.contains(COST_ACTION);
    }

    /** A Server (1.2: Receiver) fault in CXF's form. */
    private static byte[] fault(Version v, String reason) {
        String text = reason.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        String fault = v == Version.SOAP11
                ? "<soap:Fault><faultcode>soap:Server</faultcode><faultstring>" + text + "</faultstring></soap:Fault>"
                : "<soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason>"
                        + "<soap:Text xml:lang=\"en\">" + text + "</soap:Text></soap:Reason></soap:Fault>";
        return (new String(v.open, StandardCharsets.US_ASCII) + fault + new String(v.close, StandardCharsets.US_ASCII))
                .getBytes(StandardCharsets.UTF_8);
    }
}
