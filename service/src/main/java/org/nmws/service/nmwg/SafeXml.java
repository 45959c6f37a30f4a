package org.nmws.service.nmwg;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.nmws.service.usecase.ErrorCodes;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * The one way nmws turns untrusted bytes into a DOM: no DTDs, no external entities or
 * schemas, no XInclude, a size limit checked before parsing, and the document's shape
 * (elements, depth, attributes) bounded before any DOM is built: a byte scan bounds the
 * elements from above, and only a document past the element limit is streamed first and
 * refused there, so a document of a million empty elements costs a few hundred kilobytes of
 * reading, not a heap; the rest are parsed once and their tree checked.
 * Every transport that carries a raw NMWG document comes through here.
 */
public final class SafeXml {
    private final DocumentBuilderFactory factory;
    private final XMLInputFactory streaming;
    private final int maxBytes;
    private final int maxDepth;

    public SafeXml(int maxBytes, int maxDepth) {
        this.maxBytes = maxBytes;
        this.maxDepth = maxDepth;
        this.factory = hardenedFactory();
        this.streaming = hardenedStreamingFactory();
    }

    private DocumentBuilder newBuilder() {
        try {
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(QUIET);
            builder.setEntityResolver((publicId, systemId) -> {
                throw new SAXException("external entity refused: " + systemId);
            });
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The JDK's own StAX reader (the same Xerces scanner as the DOM builder, so both read the
     * bytes alike), with DTDs off and no entity resolved: a DOCTYPE is refused when it is met.
     */
    private static XMLInputFactory hardenedStreamingFactory() {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setXMLResolver((publicId, systemId, base, namespace) -> {
            throw new XMLStreamException("external resource refused: " + systemId);
        });
        return f;
    }

    /** A namespace-aware factory that refuses any DOCTYPE outright. */
    public static DocumentBuilderFactory hardenedFactory() {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setXIncludeAware(false);
        f.setExpandEntityReferences(false);
        try {
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("XML parser cannot be hardened: " + e.getMessage(), e);
        }
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        return f;
    }

    /**
     * Parses a document.
     *
     * @throws NmwgException with {@link ErrorCodes#PARSE_ERROR} for anything not acceptable
     */
    public Document parse(byte[] bytes) throws NmwgException {
        if (bytes.length == 0) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "empty request: expected an NMWG XML message");
        }
        if (bytes.length > maxBytes) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR,
                    "request of " + bytes.length + " bytes exceeds the limit of " + maxBytes + " bytes");
        }
        StrictUtf8.check(bytes);
        // A document with few enough tags cannot build a tree past the limits: the tree itself is
        // checked exactly after the one parse (checkDepth). Only one that might be an element
        // bomb pays a streaming pass first, so its tree is never built (issue 20: that pass over
        // every body made an Echo over /nmwg 12 % slower than wave 2).
        if (tags(bytes) > MAX_ELEMENTS) {
            countWhileStreaming(bytes);
        }
        Document doc;
        // A builder per parse: a kept Xerces builder keeps every name it ever read in its symbol
        // table (jdk.xml.resetSymbolTable is off by default), which a client can grow without bound.
        DocumentBuilder builder = newBuilder();
        try {
            doc = builder.parse(new ByteArrayInputStream(bytes));
        } catch (SAXParseException e) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request is not acceptable XML (line "
                    + e.getLineNumber() + ", column " + e.getColumnNumber() + "): " + describe(e));
        } catch (SAXException | IOException e) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request is not acceptable XML: " + describe(e));
        }
        checkDepth(doc.getDocumentElement());
        return doc;
    }

    /** Whether a document might hold more elements than any transport reads into a tree (a byte scan, an upper bound). */
    public static boolean mayHoldTooManyElements(byte[] bytes) {
        return tags(bytes) > MAX_ELEMENTS;
    }

    /**
     * Reads the document once as a stream, keeping nothing, and refuses it as soon as it holds
     * too many elements, nests too deep, or has too many or too long attributes: the limits
     * {@link #checkDepth} applies to a tree, applied before the tree exists (issue 21: ten
     * concurrent 4 MB documents of a million empty elements took the heap).
     */
    private void countWhileStreaming(byte[] bytes) throws NmwgException {
        XMLStreamReader r = null;
        try {
            r = streaming.createXMLStreamReader(new ByteArrayInputStream(bytes));
            int depth = 0;
            int elements = 0;
            while (r.hasNext()) {
                switch (r.next()) {
                    case XMLStreamConstants.DTD ->
                            throw new NmwgException(ErrorCodes.PARSE_ERROR, "DOCTYPE declarations are not allowed");
                    case XMLStreamConstants.ENTITY_REFERENCE -> throw new NmwgException(ErrorCodes.PARSE_ERROR,
                            "request refers to an undeclared entity '&" + r.getLocalName() + ";'");
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (++depth > maxDepth) {
                            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request nests elements deeper than " + maxDepth);
                        }
                        if (++elements > MAX_ELEMENTS) {
                            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request holds more than " + MAX_ELEMENTS
                                    + " elements");
                        }
                        if (r.getAttributeCount() + r.getNamespaceCount() > MAX_ATTRIBUTES) {
                            throw new NmwgException(ErrorCodes.PARSE_ERROR, "an element has more than " + MAX_ATTRIBUTES
                                    + " attributes");
                        }
                        for (int i = 0; i < r.getAttributeCount(); i++) {
                            if (r.getAttributeValue(i).length() > MAX_ATTRIBUTE_CHARS) {
                                throw new NmwgException(ErrorCodes.PARSE_ERROR, "an attribute value exceeds "
                                        + MAX_ATTRIBUTE_CHARS + " characters");
                            }
                        }
                    }
                    case XMLStreamConstants.END_ELEMENT -> depth--;
                    default -> { }
                }
            }
        } catch (XMLStreamException e) {
            javax.xml.stream.Location at = e.getLocation();
            String where = at == null ? "" : " (line " + at.getLineNumber() + ", column " + at.getColumnNumber() + ")";
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request is not acceptable XML" + where + ": "
                    + describe(e).replaceFirst("^ParseError at \\[row,col\\]:\\[\\d+,\\d+\\]\\s*Message: ", ""));
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // nothing held: the input is an array
                }
            }
        }
    }

    /**
     * An upper bound on the elements a document holds: its '<' not followed by '/', '!' or '?'
     * (a start or empty-element tag; one in a comment or CDATA section only counts high). A
     * byte scan, as cheap as the UTF-8 check: '<' is never part of a multi-byte UTF-8 sequence.
     */
    static int tags(byte[] bytes) {
        int n = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '<') {
                byte next = i + 1 < bytes.length ? bytes[i + 1] : 0;
                if (next != '/' && next != '!' && next != '?') {
                    n++;
                }
            }
        }
        return n;
    }

    /** Most elements a request may hold: a message of 64 full pairs has a few thousand. */
    static final int MAX_ELEMENTS = 50_000;
    /** Most attributes on one element, and longest attribute value (as CXF's limits for SOAP). */
    static final int MAX_ATTRIBUTES = 64;
    static final int MAX_ATTRIBUTE_CHARS = 65_536;

    /**
     * Checks the shape of an element tree (also for DOM handed over by SOAP): nesting depth,
     * element count, attributes per element and attribute length. The size limit alone let
     * 100 000 empty elements or one 3 MB attribute through.
     */
    public void checkDepth(Element root) throws NmwgException {
        int[] elements = {0};
        if (walk(root, 1, elements) > maxDepth) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request nests elements deeper than " + maxDepth);
        }
    }

    private int walk(Node node, int d, int[] elements) throws NmwgException {
        if (d > maxDepth) {
            return d; // stop walking: already too deep
        }
        if (++elements[0] > MAX_ELEMENTS) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "request holds more than " + MAX_ELEMENTS + " elements");
        }
        NamedNodeMap attributes = node.getAttributes();
        if (attributes != null) {
            if (attributes.getLength() > MAX_ATTRIBUTES) {
                throw new NmwgException(ErrorCodes.PARSE_ERROR, "an element has more than " + MAX_ATTRIBUTES + " attributes");
            }
            for (int i = 0; i < attributes.getLength(); i++) {
                if (attributes.item(i).getNodeValue().length() > MAX_ATTRIBUTE_CHARS) {
                    throw new NmwgException(ErrorCodes.PARSE_ERROR, "an attribute value exceeds " + MAX_ATTRIBUTE_CHARS
                            + " characters");
                }
            }
        }
        int max = d;
        for (Node c = node.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c.getNodeType() == Node.ELEMENT_NODE) {
                max = Math.max(max, walk(c, d + 1, elements));
                if (max > maxDepth) {
                    return max;
                }
            }
        }
        return max;
    }

    /** Xerces' words for an entity no DTD declared (there is none: DTDs are refused). */
    private static final java.util.regex.Pattern UNDECLARED =
            java.util.regex.Pattern.compile("The entity \"([^\"]{1,100})\" was referenced, but not declared\\.");

    private static String describe(Exception e) {
        String m = e.getMessage();
        if (m != null && m.contains("DOCTYPE")) {
            return "DOCTYPE declarations are not allowed";
        }
        java.util.regex.Matcher undeclared = m == null ? null : UNDECLARED.matcher(m);
        if (undeclared != null && undeclared.matches()) {
            return "request refers to an undeclared entity '&" + undeclared.group(1) + ";'"; // as the streaming pass says it
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }

    private static final ErrorHandler QUIET = new ErrorHandler() {
        @Override public void warning(SAXParseException e) { }
        @Override public void error(SAXParseException e) throws SAXException { throw e; }
        @Override public void fatalError(SAXParseException e) throws SAXException { throw e; }
    };
}
