package org.nmws.service.nmwg;

import org.nmws.service.usecase.ErrorCodes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Issue 21: overlong UTF-8 spelling '/' was decoded as '/' on every transport but /nmwg. */
class StrictUtf8Test {

    private static byte[] with(byte... middle) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("<m id=\"".getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(middle);
        b.writeBytes("\"/>".getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    @Test
    void overlongFormsOfASlashAreMalformedAtTheirFirstByte() {
        for (byte[] overlong : new byte[][] {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
                {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0xAF}}) {
            byte[] doc = with(overlong);
            assertEquals(7, StrictUtf8.firstMalformed(doc, doc.length));
        }
    }

    @Test
    void wellFormedUtf8OfEveryLengthIsAccepted() {
        byte[] doc = "<m id=\"/é€𝄞\"/>".getBytes(StandardCharsets.UTF_8);
        assertEquals(-1, StrictUtf8.firstMalformed(doc, doc.length));
    }

    @Test
    void aSequenceCutAtTheEndIsMalformed() {
        byte[] doc = {'a', (byte) 0xE2, (byte) 0x82};
        assertEquals(1, StrictUtf8.firstMalformed(doc, doc.length));
    }

    @Test
    void aDocumentDeclaringAnotherEncodingIsNotUtf8() {
        byte[] latin = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><m/>".getBytes(StandardCharsets.US_ASCII);
        assertFalse(StrictUtf8.xmlIsUtf8(latin, latin.length));
        byte[] plain = "<?xml version='1.0' encoding='utf-8'?><m/>".getBytes(StandardCharsets.US_ASCII);
        assertTrue(StrictUtf8.xmlIsUtf8(plain, plain.length));
        byte[] bare = "<m/>".getBytes(StandardCharsets.US_ASCII);
        assertTrue(StrictUtf8.xmlIsUtf8(bare, bare.length));
    }

    @Test
    void safeXmlRefusesAnOverlongSlashAsAParseErrorNamingTheBytes() {
        SafeXml xml = new SafeXml(64 * 1024, 16);
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse(with((byte) 0xE0, (byte) 0x80, (byte) 0xAF)));
        assertEquals(ErrorCodes.PARSE_ERROR, e.code());
        assertEquals("request is not valid UTF-8: malformed or overlong byte sequence at byte 7 (E0 80 AF 22)", e.getMessage());
    }
}
