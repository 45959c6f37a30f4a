package org.nmws.service.xmlrpc;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.XMLStreamWriter;

/**
 * A small XML-RPC codec on StAX. Why not a library: Apache XML-RPC 3.1.3 (2010) is built
 * on javax.servlet and unmaintained, and Maven Central holds no maintained Jakarta-servlet
 * XML-RPC server; the protocol is small enough to read strictly here. Hardened: any DTD
 * is refused (so no entity of any kind is expanded or fetched), and size, depth, value
 * count and string length are bounded before anything is kept.
 *
 * <p>Values map to Java as: int/i4/i8 -> Integer or Long, boolean -> Boolean, string or
 * untyped -> String, double -> Double, dateTime.iso8601 -> Instant (UTC), base64 -> byte[],
 * struct -> Map, array -> List, nil -> null.
 */
public final class XmlRpcCodec {
    /** Fault codes of the widely used XML-RPC error-code convention (xmlrpc-epi). */
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;

    private static final DateTimeFormatter ISO8601_BASIC = DateTimeFormatter.ofPattern("yyyyMMdd'T'HH:mm:ss");
    private static final XMLOutputFactory OUTPUT = XMLOutputFactory.newFactory();

    private final XMLInputFactory input;
    private final int maxBytes;
    private final int maxDepth;
    private final int maxValues;

    /** A decoded call. */
    public record Call(String method, List<Object> params) {
    }

    /** An XML-RPC fault: to be sent as a fault response. */
    public static final class Fault extends Exception {
        private final int code;

        public Fault(int code, String message) {
            super(message);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    public XmlRpcCodec(int maxBytes, int maxDepth, int maxValues) {
        this.maxBytes = maxBytes;
        this.maxDepth = maxDepth;
        this.maxValues = maxValues;
        this.input = XMLInputFactory.newFactory();
        input.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        input.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        input.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        input.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, false);
        input.setProperty(XMLInputFactory.IS_COALESCING, true);
        input.setXMLResolver((publicId, systemId, base, ns) -> {
            throw new XMLStreamException("external resource refused: " + systemId);
        });
    }

    /** Strict decode of a methodCall; anything else is a Fault with a code saying why. */
    public Call decode(byte[] body) throws Fault {
        if (body.length == 0) {
            throw new Fault(PARSE_ERROR, "empty request: expected an XML-RPC methodCall");
        }
        if (body.length > maxBytes) {
            throw new Fault(PARSE_ERROR, "request of " + body.length + " bytes exceeds the limit of " + maxBytes);
        }
        XMLStreamReader r = null;
        try {
            r = input.createXMLStreamReader(new ByteArrayInputStream(body));
            Reader in = new Reader(r);
            in.nextTag();
            in.expectStart("methodCall");
            in.nextTag();
            in.expectStart("methodName");
            String method = in.text().trim();
            if (!method.matches("[A-Za-z0-9_.:/]{1,128}")) {
                throw new Fault(INVALID_REQUEST, "methodName is empty or has characters XML-RPC does not allow");
            }
            List<Object> params = new ArrayList<>();
            int tag = in.nextTag();
            if (tag == XMLStreamConstants.START_ELEMENT) {
                in.expectStart("params");
                while (in.nextTag() == XMLStreamConstants.START_ELEMENT) {
                    in.expectStart("param");
                    in.nextTag();
                    params.add(in.value());
                    in.expectEnd("param");
                }
                in.expectEnd("methodCall");
            }
            while (r.hasNext()) {
                int ev = r.next();
                if (ev == XMLStreamConstants.DTD) {
                    throw new Fault(PARSE_ERROR, "DOCTYPE declarations are not allowed");
                }
                if (ev == XMLStreamConstants.START_ELEMENT) {
                    throw new Fault(INVALID_REQUEST, "content after the methodCall");
                }
            }
            return new Call(method, params);
        } catch (XMLStreamException e) {
            String m = e.getMessage() == null ? "" : e.getMessage();
            throw new Fault(PARSE_ERROR, "request is not acceptable XML: " + m.replaceAll("\\s+", " "));
        } catch (com.ctc.wstx.exc.WstxLazyException e) {
            // Woodstox reports some malformed input (a multi-byte character cut short at the end,
            // found by Jazzer) only when the text is read, unchecked: still the client's bad XML. Its
            // own message starts with its class name ("[com.ctc.wstx.exc.WstxLazyException] "): the
            // parse error it wraps says what is wrong without naming Java classes.
            Throwable why = e.getCause() != null ? e.getCause() : e;
            String m = why.getMessage() == null ? "" : why.getMessage().replaceFirst("^\\[[\\w.$]+\\]\\s*", "");
            throw new Fault(PARSE_ERROR, "request is not acceptable XML: " + m.replaceAll("\\s+", " "));
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // nothing to release beyond the byte array
                }
            }
        }
    }

    /** Reads one document, keeping count of depth and values. */
    private final class Reader {
        private final XMLStreamReader r;
        private int depth;
        private int values;

        Reader(XMLStreamReader r) {
            this.r = r;
        }

        /** Next start or end tag, skipping whitespace and comments; refuses DTDs and entity references. */
        int nextTag() throws XMLStreamException, Fault {
            while (r.hasNext()) {
                int ev = r.next();
                switch (ev) {
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (++depth > maxDepth) {
                            throw new Fault(PARSE_ERROR, "request nests deeper than " + maxDepth);
                        }
                        return ev;
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        depth--;
                        return ev;
                    }
                    case XMLStreamConstants.DTD -> throw new Fault(PARSE_ERROR, "DOCTYPE declarations are not allowed");
                    case XMLStreamConstants.ENTITY_REFERENCE -> throw new Fault(PARSE_ERROR, "entity references are not allowed");
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.SPACE -> {
                        if (!r.isWhiteSpace()) {
                            throw new Fault(INVALID_REQUEST, "unexpected text '" + abbreviate(r.getText().trim()) + "'");
                        }
                    }
                    default -> { } // comments, processing instructions
                }
            }
            throw new Fault(PARSE_ERROR, "request ends early");
        }

        void expectStart(String name) throws Fault {
            if (!r.isStartElement() || !name.equals(r.getLocalName())) {
                throw new Fault(INVALID_REQUEST, "expected <" + name + ">, got " + describe());
            }
        }

        /** Moves to the next tag, which must close name: stray elements are refused, not skipped. */
        void expectEnd(String name) throws XMLStreamException, Fault {
            nextTag();
            if (!r.isEndElement() || !name.equals(r.getLocalName())) {
                throw new Fault(INVALID_REQUEST, "expected </" + name + ">, got " + describe());
            }
        }

        /** Text content of the current element, up to its end tag. */
        String text() throws XMLStreamException, Fault {
            StringBuilder sb = new StringBuilder();
            while (r.hasNext()) {
                int ev = r.next();
                switch (ev) {
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> sb.append(r.getText());
                    case XMLStreamConstants.END_ELEMENT -> {
                        depth--;
                        return sb.toString();
                    }
                    case XMLStreamConstants.START_ELEMENT -> throw new Fault(INVALID_REQUEST, "unexpected <"
                            + r.getLocalName() + "> inside a scalar");
                    case XMLStreamConstants.ENTITY_REFERENCE -> throw new Fault(PARSE_ERROR, "entity references are not allowed");
                    case XMLStreamConstants.DTD -> throw new Fault(PARSE_ERROR, "DOCTYPE declarations are not allowed");
                    default -> { }
                }
            }
            throw new Fault(PARSE_ERROR, "request ends early");
        }

        /** At a &lt;value&gt; start tag: reads the value and its end tag. */
        Object value() throws XMLStreamException, Fault {
            expectStart("value");
            if (++values > maxValues) {
                throw new Fault(INVALID_REQUEST, "request holds more than " + maxValues + " values");
            }
            // Untyped content is a string: read text and child events by hand.
            StringBuilder loose = new StringBuilder();
            Object result = null;
            boolean typed = false;
            while (r.hasNext()) {
                int ev = r.next();
                if (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA || ev == XMLStreamConstants.SPACE) {
                    if (!typed) {
                        loose.append(r.getText());
                    } else if (!r.isWhiteSpace()) {
                        throw new Fault(INVALID_REQUEST, "text beside a typed value");
                    }
                } else if (ev == XMLStreamConstants.START_ELEMENT) {
                    if (typed) {
                        throw new Fault(INVALID_REQUEST, "a value holds more than one type");
                    }
                    if (++depth > maxDepth) {
                        throw new Fault(PARSE_ERROR, "request nests deeper than " + maxDepth);
                    }
                    typed = true;
                    result = typedValue(r.getLocalName());
                } else if (ev == XMLStreamConstants.END_ELEMENT) {
                    depth--;
                    return typed ? result : loose.toString();
                } else if (ev == XMLStreamConstants.DTD) {
                    throw new Fault(PARSE_ERROR, "DOCTYPE declarations are not allowed");
                } else if (ev == XMLStreamConstants.ENTITY_REFERENCE) {
                    throw new Fault(PARSE_ERROR, "entity references are not allowed");
                }
            }
            throw new Fault(PARSE_ERROR, "request ends early");
        }

        private Object typedValue(String type) throws XMLStreamException, Fault {
            switch (type) {
                case "struct" -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    while (nextTag() == XMLStreamConstants.START_ELEMENT) {
                        expectStart("member");
                        nextTag();
                        expectStart("name");
                        String name = text();
                        nextTag();
                        Object v = value();
                        expectEnd("member");
                        m.put(name, v);
                    }
                    return m;
                }
                case "array" -> {
                    List<Object> list = new ArrayList<>();
                    nextTag();
                    expectStart("data");
                    while (nextTag() == XMLStreamConstants.START_ELEMENT) {
                        list.add(value());
                    }
                    expectEnd("array");
                    return list;
                }
                case "nil" -> {
                    text();
                    return null;
                }
                default -> {
                    return scalar(type, text());
                }
            }
        }

        private String describe() {
            return r.isStartElement() ? "<" + r.getLocalName() + ">" : r.isEndElement() ? "</" + r.getLocalName() + ">" : "text";
        }
    }

    /**
     * The text when it is a number in plain ASCII: Java's parsers also take digits of other
     * scripts and hex floats, which XML-RPC's grammar does not.
     */
    private static String ascii(String t, String grammar) {
        if (!t.matches(grammar)) {
            throw new NumberFormatException("not a number in XML-RPC's grammar");
        }
        return t;
    }

    private static Object scalar(String type, String text) throws Fault {
        String t = text.trim();
        try {
            return switch (type) {
                case "string" -> text;
                case "int", "i4" -> Integer.parseInt(ascii(t, "[+-]?\\d{1,10}"));
                case "i8" -> Long.parseLong(ascii(t, "[+-]?\\d{1,19}"));
                case "boolean" -> switch (t) {
                    case "1" -> Boolean.TRUE;
                    case "0" -> Boolean.FALSE;
                    default -> throw new Fault(INVALID_PARAMS, "boolean '" + abbreviate(t) + "' is neither 0 nor 1");
                };
                case "double" -> {
                    double d = Double.parseDouble(ascii(t, "[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d{1,3})?"));
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        throw new Fault(INVALID_PARAMS, "double '" + abbreviate(t) + "' is not finite");
                    }
                    yield d;
                }
                case "dateTime.iso8601" -> dateTime(t);
                case "base64" -> Base64.getDecoder().decode(t.replaceAll("\\s+", "")); // strict: bad characters refused
                default -> throw new Fault(INVALID_REQUEST, "unknown value type <" + type + ">");
            };
        } catch (NumberFormatException e) {
            throw new Fault(INVALID_PARAMS, type + " value '" + abbreviate(t) + "' is malformed");
        } catch (IllegalArgumentException e) {
            throw new Fault(INVALID_PARAMS, "base64 value is malformed");
        }
    }

    private static Instant dateTime(String t) throws Fault {
        try {
            String s = t.replace("-", "");
            if (s.endsWith("Z")) {
                s = s.substring(0, s.length() - 1);
            }
            return LocalDateTime.parse(s, ISO8601_BASIC).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new Fault(INVALID_PARAMS, "dateTime.iso8601 '" + abbreviate(t) + "' is not yyyyMMddTHH:mm:ss");
        }
    }

    /** A methodResponse carrying one value. */
    public static byte[] response(Object value) {
        return write(w -> {
            w.writeStartElement("params");
            w.writeStartElement("param");
            writeValue(w, value);
            w.writeEndElement();
            w.writeEndElement();
        });
    }

    /** A methodResponse carrying a fault. */
    public static byte[] fault(int code, String message) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("faultCode", code);
        f.put("faultString", message);
        return write(w -> {
            w.writeStartElement("fault");
            writeValue(w, f);
            w.writeEndElement();
        });
    }

    private interface Body {
        void write(XMLStreamWriter w) throws XMLStreamException;
    }

    private static byte[] write(Body body) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
            XMLStreamWriter w = OUTPUT.createXMLStreamWriter(out, "UTF-8");
            w.writeStartDocument("UTF-8", "1.0");
            w.writeStartElement("methodResponse");
            body.write(w);
            w.writeEndElement();
            w.writeEndDocument();
            w.close();
            return out.toByteArray();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("cannot write an XML-RPC response: " + e.getMessage(), e);
        }
    }

    private static void writeValue(XMLStreamWriter w, Object v) throws XMLStreamException {
        w.writeStartElement("value");
        if (v == null) {
            w.writeEmptyElement("nil");
        } else if (v instanceof String s) {
            scalar(w, "string", s);
        } else if (v instanceof Boolean b) {
            scalar(w, "boolean", b ? "1" : "0");
        } else if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            scalar(w, "int", v.toString());
        } else if (v instanceof Long l) {
            // XML-RPC has no 64-bit type that every client reads: large values go as double.
            if (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
                scalar(w, "int", l.toString());
            } else {
                scalar(w, "double", Double.toString(l));
            }
        } else if (v instanceof Number n) {
            double d = n.doubleValue();
            // XML-RPC doubles cannot carry NaN or infinity: send them as strings rather than invalid XML-RPC.
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                scalar(w, "string", Double.toString(d));
            } else {
                scalar(w, "double", plain(d));
            }
        } else if (v instanceof Instant i) {
            scalar(w, "dateTime.iso8601", ISO8601_BASIC.format(LocalDateTime.ofInstant(i, ZoneOffset.UTC)));
        } else if (v instanceof byte[] b) {
            scalar(w, "base64", Base64.getEncoder().encodeToString(b));
        } else if (v instanceof Map<?, ?> m) {
            w.writeStartElement("struct");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                w.writeStartElement("member");
                w.writeStartElement("name");
                w.writeCharacters(String.valueOf(e.getKey()));
                w.writeEndElement();
                writeValue(w, e.getValue());
                w.writeEndElement();
            }
            w.writeEndElement();
        } else if (v instanceof List<?> list) {
            w.writeStartElement("array");
            w.writeStartElement("data");
            for (Object o : list) {
                writeValue(w, o);
            }
            w.writeEndElement();
            w.writeEndElement();
        } else {
            scalar(w, "string", v.toString());
        }
        w.writeEndElement();
    }

    private static void scalar(XMLStreamWriter w, String type, String text) throws XMLStreamException {
        w.writeStartElement(type);
        w.writeCharacters(text);
        w.writeEndElement();
    }

    /** A double without exponent where that is short, since some XML-RPC readers reject 1.0E-4. */
    private static String plain(double d) {
        String s = java.math.BigDecimal.valueOf(d).toPlainString();
        return s.length() <= 32 ? s : Double.toString(d);
    }

    private static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
