package org.nmws.service.nmwg;

import org.nmws.service.usecase.ErrorCodes;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strict UTF-8 for request bodies: overlong forms (C0 AF, E0 80 AF, F0 80 80 AF all spell
 * '/'), surrogates, stray continuation bytes and cut sequences are refused, never decoded.
 * Lenient decoders on some transports read an overlong '/' as '/' (issue 21), so a body is
 * checked once, here, the same way for every transport.
 */
public final class StrictUtf8 {
    private static final Pattern XML_DECLARED_ENCODING =
            Pattern.compile("^<\\?xml[^>]*?\\sencoding\\s*=\\s*[\"']([A-Za-z0-9._:-]+)[\"']");

    private StrictUtf8() {
    }

    /** The offset of the first byte that is not part of well-formed UTF-8, or -1 when all are. */
    public static long firstMalformed(byte[] bytes, int length) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, length);
        CharBuffer out = CharBuffer.allocate(8192);
        while (true) {
            CoderResult r = d.decode(in, out, true);
            if (r.isError()) {
                return in.position();
            }
            if (r.isUnderflow()) {
                r = d.flush(out);
                return r.isError() ? in.position() : -1;
            }
            out.clear(); // overflow: the characters are not kept, only checked
        }
    }

    /** The message a refusal gives: where, and which bytes. */
    public static String describe(byte[] bytes, int length, long at) {
        StringBuilder hex = new StringBuilder();
        for (int i = (int) at; i < Math.min(length, at + 4); i++) {
            hex.append(hex.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%02X", bytes[i] & 0xff));
        }
        return "request is not valid UTF-8: malformed or overlong byte sequence at byte " + at + " (" + hex + ")";
    }

    /**
     * Whether an XML document is in UTF-8 by its own account: no UTF-16/32 byte-order mark or
     * zero bytes of a wide encoding at its start, and no declaration of another encoding (a
     * document without a declaration is UTF-8, as XML says).
     */
    public static boolean xmlIsUtf8(byte[] bytes, int length) {
        if (length >= 2 && ((bytes[0] == (byte) 0xFE && bytes[1] == (byte) 0xFF) || (bytes[0] == (byte) 0xFF && bytes[1] == (byte) 0xFE)
                || bytes[0] == 0 || bytes[1] == 0)) {
            return false;
        }
        int start = length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF ? 3 : 0;
        String head = new String(bytes, start, Math.min(length - start, 200), StandardCharsets.ISO_8859_1);
        Matcher m = XML_DECLARED_ENCODING.matcher(head);
        if (!m.find()) {
            return true;
        }
        String declared = m.group(1).toUpperCase(Locale.ROOT);
        return declared.equals("UTF-8") || declared.equals("UTF8");
    }

    /**
     * Refuses a document that is UTF-8 by its own account but not well-formed UTF-8.
     *
     * @throws NmwgException with {@link ErrorCodes#PARSE_ERROR}, naming the offset
     */
    static void check(byte[] bytes) throws NmwgException {
        if (xmlIsUtf8(bytes, bytes.length)) {
            long at = firstMalformed(bytes, bytes.length);
            if (at >= 0) {
                throw new NmwgException(ErrorCodes.PARSE_ERROR, describe(bytes, bytes.length, at));
            }
        }
    }
}
