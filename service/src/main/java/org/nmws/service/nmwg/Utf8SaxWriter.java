package org.nmws.service.nmwg;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * JAXB's SAX events written as UTF-8 XML to a stream, for an answer that holds packed frame
 * columns: their numbers go out as ASCII digits straight from the longs ({@link #digits}), never
 * made into text, escaped and encoded, which was two thirds of a packed 100,000-frame answer's
 * time written by JAXB's own writer (issue 25). Everything else is escaped as XML requires.
 * Written by hand because no serializer of SAX events takes numbers, and the JDK's identity
 * transformer checks every digit for escaping as text. A fragment: no XML declaration.
 */
final class Utf8SaxWriter extends DefaultHandler {
    private final OutputStream out;
    private final byte[] buf = new byte[16384];
    private int n;
    /** Declarations (prefix, uri) for the next start tag. */
    private final List<String[]> pendingNs = new ArrayList<>();
    /** A start tag written up to its attributes and not yet closed: "/>" if the element ends at once. */
    private boolean open;

    Utf8SaxWriter(OutputStream out) {
        this.out = out;
    }

    @Override
    public void setDocumentLocator(Locator locator) {
        // nothing to locate: the events are JAXB's
    }

    @Override
    public void endDocument() throws SAXException {
        flush();
    }

    @Override
    public void startPrefixMapping(String prefix, String uri) {
        pendingNs.add(new String[] {prefix, uri});
    }

    @Override
    public void startElement(String uri, String localName, String qName, Attributes atts) throws SAXException {
        closeStart();
        put('<');
        ascii(qName.isEmpty() ? localName : qName);
        for (String[] ns : pendingNs) {
            ascii(ns[0].isEmpty() ? " xmlns=\"" : " xmlns:");
            if (!ns[0].isEmpty()) {
                ascii(ns[0]);
                ascii("=\"");
            }
            text(ns[1], true);
            put('"');
        }
        pendingNs.clear();
        for (int i = 0; i < atts.getLength(); i++) {
            put(' ');
            String name = atts.getQName(i);
            ascii(name.isEmpty() ? atts.getLocalName(i) : name);
            ascii("=\"");
            text(atts.getValue(i), true);
            put('"');
        }
        open = true;
    }

    @Override
    public void endElement(String uri, String localName, String qName) throws SAXException {
        if (open) {
            open = false;
            ascii("/>");
            return;
        }
        ascii("</");
        ascii(qName.isEmpty() ? localName : qName);
        put('>');
    }

    @Override
    public void characters(char[] ch, int start, int length) throws SAXException {
        closeStart();
        for (int i = start; i < start + length; i++) {
            char c = ch[i];
            if (Character.isHighSurrogate(c) && i + 1 < start + length && Character.isLowSurrogate(ch[i + 1])) {
                codePoint(Character.toCodePoint(c, ch[++i]));
            } else {
                escaped(c, false);
            }
        }
    }

    @Override
    public void ignorableWhitespace(char[] ch, int start, int length) throws SAXException {
        characters(ch, start, length);
    }

    /** A column's numbers as the element's text: decimal digits separated by spaces. */
    void digits(long[] values) throws SAXException {
        closeStart();
        for (int i = 0; i < values.length; i++) {
            if (n > buf.length - 21) {
                drain();
            }
            if (i > 0) {
                buf[n++] = ' ';
            }
            long v = values[i];
            if (v == Long.MIN_VALUE) { // no positive counterpart to turn into digits
                ascii(Long.toString(v));
                continue;
            }
            if (v < 0) {
                buf[n++] = '-';
                v = -v;
            }
            // the digits backwards, then turned round in place (FrameColumns.put's, into bytes)
            int from = n;
            do {
                buf[n++] = (byte) ('0' + (int) (v % 10));
                v /= 10;
            } while (v != 0);
            for (int a = from, b = n - 1; a < b; a++, b--) {
                byte t = buf[a];
                buf[a] = buf[b];
                buf[b] = t;
            }
        }
    }

    /** What is buffered, out to the stream. */
    void flush() throws SAXException {
        drain();
        try {
            out.flush();
        } catch (IOException e) {
            throw new SAXException(e);
        }
    }

    private void closeStart() throws SAXException {
        if (open) {
            open = false;
            put('>');
        }
    }

    /** Names and markup: ASCII or not, written as UTF-8 without escaping. */
    private void ascii(String s) throws SAXException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                put(c);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
                codePoint(Character.toCodePoint(c, s.charAt(++i)));
            } else {
                codePoint(c);
            }
        }
    }

    /** Text or an attribute value, escaped. */
    private void text(String s, boolean attribute) throws SAXException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                codePoint(Character.toCodePoint(c, s.charAt(++i)));
            } else {
                escaped(c, attribute);
            }
        }
    }

    private void escaped(char c, boolean attribute) throws SAXException {
        switch (c) {
            case '&' -> ascii("&amp;");
            case '<' -> ascii("&lt;");
            case '>' -> ascii("&gt;");
            case '"' -> {
                if (attribute) {
                    ascii("&quot;");
                } else {
                    put(c);
                }
            }
            // line ends and tabs in an attribute would be read back as spaces: kept as references
            case '\n', '\r', '\t' -> {
                if (attribute || c == '\r') {
                    ascii("&#" + (int) c + ";");
                } else {
                    put(c);
                }
            }
            default -> {
                if (c < 0x80) {
                    put(c);
                } else if (Character.isSurrogate(c)) {
                    put('?'); // half a pair has no UTF-8 form
                } else {
                    codePoint(c);
                }
            }
        }
    }

    private void codePoint(int cp) throws SAXException {
        if (n > buf.length - 4) {
            drain();
        }
        if (cp < 0x80) {
            buf[n++] = (byte) cp;
        } else if (cp < 0x800) {
            buf[n++] = (byte) (0xC0 | (cp >> 6));
            buf[n++] = (byte) (0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            buf[n++] = (byte) (0xE0 | (cp >> 12));
            buf[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            buf[n++] = (byte) (0x80 | (cp & 0x3F));
        } else {
            buf[n++] = (byte) (0xF0 | (cp >> 18));
            buf[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
            buf[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            buf[n++] = (byte) (0x80 | (cp & 0x3F));
        }
    }

    private void put(char c) throws SAXException {
        if (n == buf.length) {
            drain();
        }
        buf[n++] = (byte) c;
    }

    private void drain() throws SAXException {
        if (n > 0) {
            try {
                out.write(buf, 0, n);
            } catch (IOException e) {
                throw new SAXException(e);
            }
            n = 0;
        }
    }
}
