package org.nmws.service.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.SequenceInputStream;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;
import org.nmws.service.nmwg.StrictUtf8;
import org.nmws.service.xmlrpc.XmlRpcCodec;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * What every transport refuses of a request before its own reader sees it, each refusal worded
 * in the transport's own terms (a SOAP Client or Sender fault, an XML-RPC fault, a JSON error):
 * <ul>
 * <li>a body that claims UTF-8 (or says nothing, which for XML and JSON means UTF-8) but is not
 *     well-formed UTF-8: overlong forms of '/' were decoded as '/' over SOAP, XML-RPC and JSON
 *     (issue 21);</li>
 * <li>a JSON body holding NUL;</li>
 * <li>a compressed body (Content-Encoding): 415, send it plain;</li>
 * <li>a SOAP or JSON body over nmws.xml.max-bytes: 413, read no further than the limit;</li>
 * <li>a SOAP request by a method other than GET or POST: 405; a WSDL or schema document the
 *     service does not publish (?wsdl=../../etc/passwd): 404;</li>
 * <li>the error page asked for directly (POST /error): 404.</li>
 * </ul>
 * It stands before every transport, so it lives in a package of its own that depends on them
 * (for the XML-RPC fault's form) and that none depends on. Plain HTTP's /nmwg is left to {@link org.nmws.service.nmwg.SafeXml}, which answers the same
 * in NMWG (error.common.parse_error), and the archive import to its own streaming reader.
 */
final class RequestBodies extends OncePerRequestFilter {
    /** A refused body is read (and dropped) up to this much, so the client hears why before the connection closes. */
    static final long DRAIN_MAX = 64L * 1024 * 1024;
    /** The schema documents the WSDL names: ../xsd/NAME.xsd, nothing outside. */
    private static final Pattern XSD = Pattern.compile("\\.\\./xsd/(v1/)?[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.xsd");

    /** Where the SOAP endpoints' WSDL lies on the class path (as SoapEndpoints publishes it). */
    private static final String WSDL = "nmws/wsdl/nmws.wsdl";

    private enum Dialect { SOAP11, SOAP12, XMLRPC, JSON, UNCHECKED }

    private final String soapPath;
    private final int maxBytes;

    RequestBodies(String soapPath, int maxBytes) {
        this.soapPath = soapPath.replaceAll("/+$", "");
        this.maxBytes = maxBytes;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if (path.equals("/error")) {
            refuse(response, Dialect.JSON, HttpServletResponse.SC_NOT_FOUND,
                    "/error is the service's error page, not a resource: nothing answers " + request.getMethod() + " /error");
            return;
        }
        Dialect dialect = dialect(path, request);
        String method = request.getMethod();
        if (dialect == Dialect.SOAP11 || dialect == Dialect.SOAP12) {
            if (!method.equals("GET") && !method.equals("POST") && !method.equals("HEAD") && !method.equals("OPTIONS")) {
                response.setHeader("Allow", "GET, POST");
                refuse(response, dialect, HttpServletResponse.SC_METHOD_NOT_ALLOWED,
                        "the SOAP endpoint takes POST (a SOAP envelope) and GET (?wsdl), not " + method);
                return;
            }
            String unpublished = unpublishedDocument(request);
            if (unpublished != null) {
                refuse(response, dialect, HttpServletResponse.SC_NOT_FOUND, unpublished);
                return;
            }
        }
        if (dialect == Dialect.UNCHECKED || !hasBody(method) || isForm(request)) {
            chain.doFilter(request, response);
            return;
        }
        String encoding = request.getHeader("Content-Encoding");
        if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
            drain(request.getInputStream(), request.getContentLengthLong());
            refuse(response, dialect, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE, "Content-Encoding '"
                    + printable(encoding) + "' is not accepted: send the body uncompressed");
            return;
        }
        InputStream in = request.getInputStream();
        byte[] body = in.readNBytes(maxBytes + 1);
        if (body.length > maxBytes) {
            if (dialect == Dialect.XMLRPC) {
                // The XML-RPC reader reads to its limit and says so in a fault of its own.
                chain.doFilter(new Body(request, new SequenceInputStream(new ByteArrayInputStream(body), in)), response);
                return;
            }
            drain(in, request.getContentLengthLong());
            refuse(response, dialect, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
                    "request body exceeds the limit of " + maxBytes + " bytes (nmws.xml.max-bytes)");
            return;
        }
        String problem = problem(dialect, request, body);
        if (problem != null) {
            refuse(response, dialect, dialect == Dialect.SOAP11 ? HttpServletResponse.SC_INTERNAL_SERVER_ERROR
                    : dialect == Dialect.XMLRPC ? HttpServletResponse.SC_OK : HttpServletResponse.SC_BAD_REQUEST, problem);
            return;
        }
        if (dialect == Dialect.SOAP11 || dialect == Dialect.SOAP12) {
            request.setAttribute(org.nmws.service.transport.SoapFastPath.BODY, body); // read and checked once
        }
        chain.doFilter(new Body(request, new ByteArrayInputStream(body)), response);
    }

    private Dialect dialect(String path, HttpServletRequest request) {
        if (path.equals(soapPath) || path.startsWith(soapPath + "/")) {
            String type = request.getContentType();
            return path.endsWith("12") || (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/soap+xml"))
                    ? Dialect.SOAP12 : Dialect.SOAP11;
        }
        if (path.equals("/RPC2")) {
            return Dialect.XMLRPC;
        }
        if (path.equals("/nmwg") || path.startsWith("/archive/")) {
            return Dialect.UNCHECKED; // SafeXml words /nmwg's refusals in NMWG; the import streams its own
        }
        return Dialect.JSON;
    }

    private static boolean hasBody(String method) {
        return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
    }

    private static boolean isForm(HttpServletRequest request) {
        String type = request.getContentType();
        String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
        return t.startsWith("application/x-www-form-urlencoded") || t.startsWith("multipart/");
    }

    /** Why a GET names a WSDL or schema document that is not published, or null for the WSDL and its schemas. */
    private static String unpublishedDocument(HttpServletRequest request) {
        String wsdl = request.getParameter("wsdl");
        if (wsdl != null && !wsdl.isEmpty()) {
            return "no WSDL document '" + printable(wsdl) + "' here: the service's WSDL is at ?wsdl";
        }
        String xsd = request.getParameter("xsd");
        if (xsd != null) {
            boolean known = XSD.matcher(xsd).matches()
                    && RequestBodies.class.getClassLoader().getResource(URI.create(WSDL).resolve(xsd).toString()) != null;
            if (!known) {
                return "no schema document '" + printable(xsd) + "' here: the WSDL (?wsdl) names the schemas it uses";
            }
        }
        return null;
    }

    /** What is wrong with a body of a checked dialect, or null. */
    private static String problem(Dialect dialect, HttpServletRequest request, byte[] body) {
        String charset = charset(request.getContentType());
        boolean utf8;
        if (charset != null) {
            utf8 = charset.equals("UTF-8") || charset.equals("UTF8");
        } else {
            utf8 = dialect == Dialect.JSON || StrictUtf8.xmlIsUtf8(body, body.length);
        }
        if (utf8) {
            long at = StrictUtf8.firstMalformed(body, body.length);
            if (at >= 0) {
                return StrictUtf8.describe(body, body.length, at);
            }
        }
        if (dialect == Dialect.JSON && utf8 && holdsNul(new String(body, StandardCharsets.UTF_8))) {
            return "a JSON body may not hold NUL (\\u0000)";
        }
        return null;
    }

    /** The charset parameter of a Content-Type, upper case, or null when none is named. */
    static String charset(String contentType) {
        if (contentType == null) {
            return null;
        }
        for (String part : contentType.split(";")) {
            String p = part.trim();
            if (p.regionMatches(true, 0, "charset=", 0, 8)) {
                return p.substring(8).trim().replace("\"", "").toUpperCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** Whether JSON text holds NUL, raw or as the escape \u0000 (an escaped backslash before "u0000" is not one). */
    static boolean holdsNul(String json) {
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == 0) {
                return true;
            }
            if (c == '\\' && i + 1 < json.length()) {
                if (json.startsWith("u0000", i + 1)) {
                    return true;
                }
                i++; // the escaped character, whatever it is
            }
        }
        return false;
    }

    private static void drain(InputStream in, long declared) throws IOException {
        if (declared > DRAIN_MAX) {
            return; // too much to read: the container closes the connection after the answer
        }
        long left = DRAIN_MAX;
        byte[] buffer = new byte[65536];
        int n;
        while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
            left -= n;
        }
    }

    private static void refuse(HttpServletResponse response, Dialect dialect, int status, String reason) throws IOException {
        String type;
        byte[] body;
        switch (dialect) {
            case SOAP11 -> {
                type = "text/xml;charset=UTF-8";
                body = ("<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><soap:Fault>"
                        + "<faultcode>soap:Client</faultcode><faultstring>" + xml(reason) + "</faultstring></soap:Fault>"
                        + "</soap:Body></soap:Envelope>").getBytes(StandardCharsets.UTF_8);
            }
            case SOAP12 -> {
                type = "application/soap+xml;charset=UTF-8";
                body = ("<soap:Envelope xmlns:soap=\"http://www.w3.org/2003/05/soap-envelope\"><soap:Body><soap:Fault>"
                        + "<soap:Code><soap:Value>soap:Sender</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang=\"en\">"
                        + xml(reason) + "</soap:Text></soap:Reason></soap:Fault></soap:Body></soap:Envelope>")
                        .getBytes(StandardCharsets.UTF_8);
            }
            case XMLRPC -> {
                type = "text/xml;charset=UTF-8";
                body = XmlRpcCodec.fault(XmlRpcCodec.PARSE_ERROR, reason);
            }
            default -> {
                type = "application/json";
                body = ("{\"error\":\"" + json(reason) + "\"}").getBytes(StandardCharsets.UTF_8);
            }
        }
        response.setStatus(status);
        response.setContentType(type);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static String printable(String s) {
        String shown = s.length() > 64 ? s.substring(0, 64) + "..." : s;
        return shown.replaceAll("[^\\x20-\\x7e]", "?");
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    /** The request with its body read again from what the filter read. */
    private static final class Body extends HttpServletRequestWrapper {
        private final InputStream body;

        Body(HttpServletRequest request, InputStream body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            return new ServletInputStream() {
                private boolean finished;

                @Override
                public int read() throws IOException {
                    int b = body.read();
                    finished = b < 0;
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = body.read(b, off, len);
                    finished = n < 0;
                    return n;
                }

                @Override
                public boolean isFinished() {
                    return finished;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body has been read already: read it blocking");
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            String cs = charset(getContentType());
            Charset charset = cs == null || !Charset.isSupported(cs) ? StandardCharsets.UTF_8 : Charset.forName(cs);
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }
}
