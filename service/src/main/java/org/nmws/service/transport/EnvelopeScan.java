package org.nmws.service.transport;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A byte scan that says "surely fine" of the common SOAP request: an Envelope of the expected
 * namespace at the root whose Body holds exactly one element. It answers true only for what it
 * read whole; anything else (a DTD, an entity in a namespace name, text where elements stand, a
 * wrong count, an encoding that is not ASCII-compatible) is "not sure", and {@link OneBodyElement}
 * then runs its streaming check, which words every refusal. Written by hand because a StAX reader
 * costs more to set up per request than this whole scan (issue 20: the check was most of what an
 * Echo over SOAP paid beyond wave 2's), and no library offers a verdict this narrow.
 */
final class EnvelopeScan {
    private final byte[] b;
    private final int end;
    private int i;

    private EnvelopeScan(byte[] b, int length) {
        this.b = b;
        this.end = length;
    }

    /**
     * Whether the document is surely an Envelope in {@code envelopeNs} whose Body holds exactly one
     * element. False means only "not sure".
     *
     * @param encoding the Content-Type's charset, or null
     */
    static boolean surelyOneBodyElement(byte[] document, int length, String encoding, String envelopeNs) {
        return surely(document, length, encoding, envelopeNs, false);
    }

    /**
     * As {@link #surelyOneBodyElement}, and the Envelope holds nothing before its Body: no
     * Header (the SOAP fast path's requests; a header may be one to understand or credentials).
     */
    static boolean surelyHeaderlessOneBodyElement(byte[] document, int length, String encoding, String envelopeNs) {
        return surely(document, length, encoding, envelopeNs, true);
    }

    private static boolean surely(byte[] document, int length, String encoding, String envelopeNs, boolean headerless) {
        if (encoding != null && !asciiCompatible(encoding)) {
            return false;
        }
        try {
            return new EnvelopeScan(document, length).scan(envelopeNs.getBytes(StandardCharsets.US_ASCII), headerless);
        } catch (NotSure e) {
            return false;
        }
    }

    private static boolean asciiCompatible(String encoding) {
        String e = encoding.trim().toUpperCase(java.util.Locale.ROOT);
        return e.equals("UTF-8") || e.equals("UTF8") || e.equals("ISO-8859-1") || e.equals("US-ASCII");
    }

    /** Thrown where the scan stops being sure; cheap, as it carries no stack. */
    private static final class NotSure extends RuntimeException {
        static final NotSure INSTANCE = new NotSure();

        private NotSure() {
            super(null, null, false, false);
        }
    }

    /** A start tag as read: its name's prefix and local part (offsets into the bytes), its namespace declarations. */
    private static final class Tag {
        int prefixStart;
        int prefixEnd; // == prefixStart: no prefix
        int localStart;
        int localEnd;
        boolean empty;
        // a handful of declarations per tag is the norm; more is not sure
        final int[] declPrefix = new int[16]; // start, end pairs
        final int[] declValue = new int[16];
        int decls;
    }

    private boolean scan(byte[] envelopeNs, boolean headerless) {
        if (end >= 3 && (b[0] & 0xff) == 0xEF && (b[1] & 0xff) == 0xBB && (b[2] & 0xff) == 0xBF) {
            i = 3; // UTF-8's byte order mark
        }
        skipMisc();
        Tag root = new Tag();
        startTag(root);
        if (root.empty || !local(root, "Envelope") || !inNamespace(root, null, root, envelopeNs)) {
            return false;
        }
        Tag t = new Tag();
        while (true) { // the Envelope's children up to its Body
            skipMisc();
            if (at(i + 1) == '/') {
                return false; // the Envelope ends without a Body
            }
            startTag(t);
            if (local(t, "Body") && inNamespace(t, t, root, envelopeNs)) {
                break;
            }
            if (headerless) {
                return false;
            }
            if (!t.empty) {
                skipContent();
            }
        }
        if (t.empty) {
            return false;
        }
        int elements = 0;
        Tag child = new Tag();
        while (true) {
            skipMisc();
            if (at(i + 1) == '/') {
                return elements == 1 && endTagOf(t); // the Body's end tag
            }
            if (++elements > 1) {
                return false;
            }
            startTag(child);
            if (!child.empty) {
                skipContent();
            }
        }
    }

    /** Whitespace, comments and processing instructions; stops at the next '<' of an element or end tag. */
    private void skipMisc() {
        while (true) {
            byte c = at(i);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
                i++;
            } else if (c != '<') {
                throw NotSure.INSTANCE; // text where elements stand
            } else if (at(i + 1) == '?') {
                int from = i;
                i = after("?>", i + 2);
                if (startsWith("<?xml", from) && !plainDeclaration(from, i)) {
                    throw NotSure.INSTANCE;
                }
            } else if (at(i + 1) == '!') {
                skipBang();
            } else {
                return;
            }
        }
    }

    /**
     * Whether the XML declaration in [from, to) is one this scan reads as the stream reader does:
     * version 1.0 (1.1 adds line ends such as NEL that split what this scan reads as one name),
     * and no encoding or an ASCII-compatible one.
     */
    private boolean plainDeclaration(int from, int to) {
        String decl = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        java.util.regex.Matcher version = DECL_VERSION.matcher(decl);
        if (!version.find() || !version.group(1).equals("1.0")) {
            return false;
        }
        java.util.regex.Matcher encoding = DECL_ENCODING.matcher(decl);
        return !encoding.find() || asciiCompatible(encoding.group(1));
    }

    private static final java.util.regex.Pattern DECL_VERSION = java.util.regex.Pattern.compile("version\\s*=\\s*[\"']([^\"']*)[\"']");
    private static final java.util.regex.Pattern DECL_ENCODING = java.util.regex.Pattern.compile("encoding\\s*=\\s*[\"']([^\"']*)[\"']");

    /** A comment or CDATA section; a DOCTYPE (or anything else after "<!") is not sure. */
    private void skipBang() {
        if (startsWith("<!--", i)) {
            i = after("-->", i + 4);
        } else if (startsWith("<![CDATA[", i)) {
            i = after("]]>", i + 9);
        } else {
            throw NotSure.INSTANCE;
        }
    }

    /** Reads the start tag at i (at(i) == '<') into t; i ends after its '>'. */
    private void startTag(Tag t) {
        i++;
        int nameStart = i;
        int colon = -1;
        while (!nameEnds(at(i))) {
            if (at(i) == ':' && colon < 0) {
                colon = i;
            }
            i++;
        }
        if (i == nameStart || at(nameStart) == '/') {
            throw NotSure.INSTANCE;
        }
        t.prefixStart = nameStart;
        t.prefixEnd = colon < 0 ? nameStart : colon;
        t.localStart = colon < 0 ? nameStart : colon + 1;
        t.localEnd = i;
        t.decls = 0;
        while (true) {
            skipSpace();
            byte c = at(i);
            if (c == '>') {
                i++;
                t.empty = false;
                return;
            }
            if (c == '/') {
                if (at(i + 1) != '>') {
                    throw NotSure.INSTANCE;
                }
                i += 2;
                t.empty = true;
                return;
            }
            int attrStart = i;
            while (!nameEnds(at(i)) && at(i) != '=') {
                i++;
            }
            int attrEnd = i;
            skipSpace();
            if (attrEnd == attrStart || at(i) != '=') {
                throw NotSure.INSTANCE;
            }
            i++;
            skipSpace();
            byte quote = at(i);
            if (quote != '"' && quote != '\'') {
                throw NotSure.INSTANCE;
            }
            int valueStart = ++i;
            while (at(i) != quote) {
                if (at(i) == '<') {
                    throw NotSure.INSTANCE;
                }
                i++;
            }
            int valueEnd = i++;
            byte next = at(i);
            if (next != ' ' && next != '\t' && next != '\r' && next != '\n' && next != '/' && next != '>') {
                throw NotSure.INSTANCE; // attributes run together: not XML 1.0, and an XML 1.1 reader may split them its way
            }
            boolean xmlns = attrEnd - attrStart >= 5 && startsWith("xmlns", attrStart)
                    && (attrEnd - attrStart == 5 || at(attrStart + 5) == ':');
            if (xmlns) {
                if (t.decls * 2 + 2 > t.declPrefix.length || indexOf((byte) '&', valueStart, valueEnd) >= 0) {
                    throw NotSure.INSTANCE; // many declarations, or a reference to resolve in a namespace name
                }
                int p = attrEnd - attrStart == 5 ? attrEnd : attrStart + 6;
                t.declPrefix[2 * t.decls] = p;
                t.declPrefix[2 * t.decls + 1] = attrEnd;
                t.declValue[2 * t.decls] = valueStart;
                t.declValue[2 * t.decls + 1] = valueEnd;
                t.decls++;
            }
        }
    }

    /** Skips the content of the element whose start tag was just read, to after its end tag. */
    private void skipContent() {
        int depth = 1;
        Tag inner = new Tag();
        while (depth > 0) {
            int lt = indexOf((byte) '<', i, end);
            if (lt < 0) {
                throw NotSure.INSTANCE;
            }
            i = lt;
            byte next = at(i + 1);
            if (next == '/') {
                i = after(">", i + 2);
                depth--;
            } else if (next == '?') {
                i = after("?>", i + 2);
            } else if (next == '!') {
                skipBang();
            } else {
                startTag(inner);
                if (!inner.empty) {
                    depth++;
                }
            }
        }
    }

    /** Whether the end tag at i closes t: its name, then optional space and '>'. */
    private boolean endTagOf(Tag t) {
        int n = t.localEnd - t.prefixStart;
        if (!Arrays.equals(b, t.prefixStart, t.localEnd, b, Math.min(i + 2, end), Math.min(i + 2 + n, end))) {
            return false;
        }
        i += 2 + n;
        skipSpace();
        return at(i) == '>';
    }

    /** Whether the tag's name is bound to ns: by its own declarations, then by the scope's (the root's). */
    private boolean inNamespace(Tag t, Tag own, Tag scope, byte[] ns) {
        int[] found = own == null ? null : declared(own, t);
        if (found == null) {
            found = declared(scope, t);
        }
        return found != null && Arrays.equals(b, found[0], found[1], ns, 0, ns.length);
    }

    /** The value range of the declaration in d that binds t's prefix, or null. */
    private int[] declared(Tag d, Tag t) {
        int[] found = null;
        for (int k = 0; k < d.decls; k++) {
            if (Arrays.equals(b, d.declPrefix[2 * k], d.declPrefix[2 * k + 1], b, t.prefixStart, t.prefixEnd)) {
                found = new int[] {d.declValue[2 * k], d.declValue[2 * k + 1]}; // the last one counts, as in the reader
            }
        }
        return found;
    }

    /** The byte at k; past the document's end the scan is not sure (a truncated document). */
    private byte at(int k) {
        if (k >= end) {
            throw NotSure.INSTANCE;
        }
        return b[k];
    }

    private boolean local(Tag t, String name) {
        if (t.localEnd - t.localStart != name.length()) {
            return false;
        }
        for (int k = 0; k < name.length(); k++) {
            if (b[t.localStart + k] != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static boolean nameEnds(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '/' || c == '>';
    }

    private void skipSpace() {
        while (at(i) == ' ' || at(i) == '\t' || at(i) == '\r' || at(i) == '\n') {
            i++;
        }
    }

    private boolean startsWith(String s, int at) {
        if (at + s.length() > end) {
            return false;
        }
        for (int k = 0; k < s.length(); k++) {
            if (b[at + k] != s.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /** The offset just after the next s at or after from. */
    private int after(String s, int from) {
        for (int k = from; k + s.length() <= end; k++) {
            if (startsWith(s, k)) {
                return k + s.length();
            }
        }
        throw NotSure.INSTANCE;
    }

    private int indexOf(byte c, int from, int to) {
        for (int k = from; k < to; k++) {
            if (b[k] == c) {
                return k;
            }
        }
        return -1;
    }
}
